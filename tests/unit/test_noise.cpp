// The conditions and spread warnings of noise.hpp, on given readings: which
// readings warn, what the sentence names, and what is recorded beside it.
#include "bench/core/noise.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace hetprobe {
namespace {

// A node of `online` CPUs, the run on the first `cpus`; `runnable`: procs_running readings.
NodeReadings readings(int cpus, int online, std::vector<double> runnable, int ranks, double load_1m) {
  NodeReadings r;
  r.run_cpus.assign(static_cast<std::size_t>(online), false);
  for (int c = 0; c < cpus; ++c) r.run_cpus[static_cast<std::size_t>(c)] = true;
  r.online_cpus = online;
  r.runnable_samples = std::move(runnable);
  r.run_ranks = ranks;
  r.load_average = std::array<double, 3>{load_1m, load_1m, load_1m};
  return r;
}

bool mentions(const Json& warnings, const std::string& text) {
  for (const Json& w : warnings)
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

TEST(Conditions, AQuietNodeHasNoWarnings) {
  // Two ranks on two CPUs, nothing else running: the run's own ranks are not noise.
  const Json j = conditions_json(readings(2, 2, {2, 3, 2, 2, 1}, 2, 0.5));
  EXPECT_TRUE(j.at("warnings").empty()) << j.dump();
  const Json& c = j.at("conditions");
  EXPECT_EQ(c.at("cpus"), 2);
  EXPECT_EQ(c.at("online_cpus"), 2);
  EXPECT_EQ(c.at("ranks_on_node"), 2);
  EXPECT_EQ(c.at("runnable_threads").at("median"), 2.0);
  EXPECT_EQ(c.at("runnable_threads").at("samples").size(), 5u);
  EXPECT_EQ(c.at("busy_threads_on_cpus"), 2.0);
  EXPECT_EQ(c.at("other_busy_threads_on_cpus"), 0.0);
  EXPECT_EQ(c.at("load_average").size(), 3u);
}

TEST(Conditions, OtherBusyThreadsOnTheRunsCpusWarn) {
  // One process, four other busy loops on a 2-CPU node: 5 runnable, 4 besides the rank.
  const Json j = conditions_json(readings(2, 2, {5, 6, 5, 4, 5}, 1, 0.5));
  ASSERT_EQ(j.at("warnings").size(), 1u) << j.dump();
  const std::string w = j.at("warnings")[0];
  EXPECT_NE(w.find("5 runnable threads on the 2 CPUs"), std::string::npos) << w;
  EXPECT_NE(w.find("4 besides its 1 rank"), std::string::npos) << w;
  EXPECT_NE(w.find("threshold"), std::string::npos) << w;
  EXPECT_EQ(j.at("conditions").at("other_busy_threads_on_cpus"), 4.0);
}

TEST(Conditions, RanksAloneBeyondTheCpusWarn) {
  const Json j = conditions_json(readings(2, 2, {4, 4, 4}, 4, 0.5));
  EXPECT_TRUE(mentions(j.at("warnings"), "4 runnable threads on the 2 CPUs")) << j.dump();
}

TEST(Conditions, OnlyTheRunsShareOfANodesOtherThreadsCounts) {
  // 2 of 16 CPUs; 9 runnable on the node = 1 rank + 8 others, of which 2/16 count: 2 busy on 2 CPUs.
  const Json quiet = conditions_json(readings(2, 16, {9}, 1, 0.5));
  EXPECT_TRUE(quiet.at("warnings").empty()) << quiet.dump();
  EXPECT_EQ(quiet.at("conditions").at("busy_threads_on_cpus"), 2.0);
  // 25 runnable: 24 others, 3 of them on these CPUs.
  EXPECT_FALSE(conditions_json(readings(2, 16, {25}, 1, 0.5)).at("warnings").empty());
}

TEST(Conditions, ThreadsSeenOnTheRunsCpusCountInFull) {
  // A 2-CPU cpuset of a 16-CPU node with 4 busy loops inside it (the even spread would say 1.5):
  // the run queues of CPUs 0 and 1 hold 5 runnable threads, CPU 7 one more.
  NodeReadings r = readings(2, 16, {6, 6, 6}, 1, 0.5);
  std::vector<int> by_cpu(16, 0);
  by_cpu[0] = 3, by_cpu[1] = 2, by_cpu[7] = 1;
  r.runnable_by_cpu = {by_cpu, by_cpu, by_cpu};
  const Json j = conditions_json(r);
  EXPECT_EQ(j.at("conditions").at("runnable_threads_on_cpus").at("median"), 5.0);
  EXPECT_EQ(j.at("conditions").at("busy_threads_on_cpus"), 5.0);
  EXPECT_TRUE(mentions(j.at("warnings"), "5 runnable threads on the 2 CPUs")) << j.dump();
}

TEST(Conditions, HighLoadAverageWarns) {
  const Json j = conditions_json(readings(2, 2, {1}, 1, 3.5));
  ASSERT_EQ(j.at("warnings").size(), 1u) << j.dump();
  EXPECT_TRUE(mentions(j.at("warnings"), "1-minute load average 3.5 is above the node's 2 online CPUs"));
  EXPECT_TRUE(conditions_json(readings(2, 2, {1}, 1, 2.0)).at("warnings").empty()) << "at the CPU count: fine";
}

TEST(Conditions, UnreadableReadingsAreNullNotWarnings) {
  NodeReadings r;
  r.run_cpus = {true, true};
  r.online_cpus = 2;
  const Json j = conditions_json(r);
  EXPECT_TRUE(j.at("conditions").at("runnable_threads").is_null());
  EXPECT_TRUE(j.at("conditions").at("runnable_threads_on_cpus").is_null());
  EXPECT_TRUE(j.at("conditions").at("busy_threads_on_cpus").is_null());
  EXPECT_TRUE(j.at("conditions").at("load_average").is_null());
  EXPECT_TRUE(j.at("warnings").empty());
}

Json summary(double median, double p90) { return Json{{"n", 100}, {"median", median}, {"p90", p90}}; }

TEST(Spread, ALongTailWarnsNamingTheReadingAndThreshold) {
  // The loaded run: round trip p90 of 12 ms on a median of 200 us.
  const Json w = spread_warnings(summary(200e3, 12e6), "roundtrip_ns");
  ASSERT_EQ(w.size(), 1u);
  const std::string s = w[0];
  EXPECT_NE(s.find("roundtrip_ns p90 is 60x the median"), std::string::npos) << s;
  EXPECT_NE(s.find("threshold 2x"), std::string::npos) << s;
}

TEST(Spread, GpuScaleTailsDoNotWarn) {
  // notebooks/data: a poll load on a 1 KiB send (2 us -> 9.6 us), a host callback (15 -> 40 us).
  EXPECT_TRUE(spread_warnings(summary(1989, 9579), "send_time_ns").empty());
  EXPECT_TRUE(spread_warnings(summary(15314, 40229), "roundtrip_ns").empty());
  // A narrow distribution, however slow.
  EXPECT_TRUE(spread_warnings(summary(5e6, 9e6), "send_time_ns").empty());
}

TEST(Spread, PerOperationValuesAreScaledToTheSample) {
  // 1000 ops a sample: 0.1 us -> 1 us per op is 900 us more a sample.
  EXPECT_TRUE(spread_warnings(summary(100, 1000), "ns_per_op").empty());
  EXPECT_EQ(spread_warnings(summary(100, 1000), "ns_per_op", 1000).size(), 1u);
}

TEST(Spread, MissingOrUnresolvedSummariesHaveNoWarnings) {
  EXPECT_TRUE(spread_warnings(nullptr, "x").empty());
  EXPECT_TRUE(spread_warnings(Json{{"median", nullptr}, {"p90", nullptr}, {"unresolved", true}}, "x").empty());
  EXPECT_TRUE(spread_warnings(summary(0, 0), "x").empty());
}

TEST(Spread, SlowRateSamplesWarn) {
  Summary s;
  s.n = 5;
  s.median = 10;
  s.p10 = 4;
  const Json w = rate_spread_warnings(s, "gbs");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].get<std::string>().find("gbs p10 is 0.4x the median"), std::string::npos) << w[0];
  s.p10 = 6;
  EXPECT_TRUE(rate_spread_warnings(s, "gbs").empty());
}

TEST(ClockFitWarnings, AGoodFitHasNone) {
  // GPU-like: 1 us precision over 10 s, residuals within it, the check within its precision.
  EXPECT_TRUE(clock_fit_warnings(1000, 500, 10e9, 0.3, true, 200, 1000).empty());
}

TEST(ClockFitWarnings, ALoadedFitSaysWhy) {
  // The loaded host run: ms-scale stamps give a 49.5 ppm "drift" of a clock against itself.
  const Json w = clock_fit_warnings(2e6, 5e6, 10e9, 49.5, false, 8e6, 2e6);
  EXPECT_EQ(w.size(), 3u) << w.dump();
  EXPECT_TRUE(mentions(w, "residual_rms_ns 5000000 is above the fit's precision_ns 2000000"));
  EXPECT_TRUE(mentions(w, "the check missed its prediction by 8000000 ns"));
  EXPECT_TRUE(mentions(w, "drift_ppm 49.5 is uncertain by about 400 ppm"));
}

TEST(BelowStep, ATimeUnderItsStepSaysWhatItMeans) {
  // The host backend's flag read + write: 0.28 ns on a TSC of 2.6 GHz (0.385 ns a tick).
  const Json w = below_step_warnings(0.28, "ns_per_op median", 0.385, "a TSC tick", "the loop's speed");
  ASSERT_EQ(w.size(), 1u) << w.dump();
  EXPECT_EQ(w[0], "ns_per_op median is 0.727x a TSC tick (0.385 ns; threshold 1x): the loop's speed");
  EXPECT_TRUE(below_step_warnings(0.385, "x", 0.385, "a tick", "m").empty()) << "one whole step is possible";
  EXPECT_TRUE(below_step_warnings(1291, "x", 0.385, "a tick", "m").empty());
}

TEST(BelowStep, AnUnknownStepOrValueHasNone) {
  EXPECT_TRUE(below_step_warnings(5, "precision_ns", 0, "the tick", "m").empty()) << "tick not measured";
  EXPECT_TRUE(below_step_warnings(NAN, "precision_ns", 32, "the tick", "m").empty());
  EXPECT_TRUE(below_step_warnings(5, "precision_ns", INFINITY, "the tick", "m").empty());
}

TEST(CpuList, ParsesTheFormatCpuListForm) {
  const std::vector<bool> c = parse_cpu_list("0-2,5,7-8");
  const std::vector<bool> want{true, true, true, false, false, true, false, true, true};
  EXPECT_EQ(c, want);
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_TRUE(parse_cpu_list("3-1,x,99999999").empty()) << "malformed items are skipped";
}

}  // namespace
}  // namespace hetprobe
