// The node verdict's rules (bench/gpus/node_verdict.hpp) on synthetic runs:
// rounds of every GPU, launches, re-measures, links, baselines.
#include "bench/gpus/node_verdict.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "bench/gpus/gpu_rounds.hpp"
#include "tests/unit/expect_usage_error.hpp"

namespace hetprobe {
namespace {

// What GPU `gpu` measures in round `round` of launch `launch` (a factor on a healthy number).
using Slowdown = std::function<double(int launch, int round, int gpu)>;

// One launch of the gpus probe: a header and rounds x gpus visits, every
// metric healthy times slow(...) (times up, GB/s down), with a little noise.
ResultsFile launch(int index, int gpus, int rounds, const Slowdown& slow, const char* phase = "measure",
                   const std::string& model = "H100", const std::string& host = "node-a") {
  ResultsFile f;
  f.path = "/runs/run/gpus.launch" + std::to_string(index) + ".jsonl";
  Json ranks = Json::array();
  for (int g = 0; g < gpus; ++g)
    ranks.push_back({{"rank", g},
                     {"host", host},
                     {"device", {{"name", model}, {"pci_bus_id", "0000:0" + std::to_string(g) + ":00.0"}}}});
  static int launches_made = 0;  // each launch its own header, as each process's start time makes it
  f.records.push_back({{"record", "header"},
                       {"probe", "gpus"},
                       {"host", host},
                       {"backend", "cuda"},
                       {"start_time_utc", "launch " + std::to_string(++launches_made)},
                       {"ranks", ranks}});
  for (int r = 0; r < rounds; ++r)
    for (int g = 0; g < gpus; ++g) {
      const double noise = 1 + 0.01 * std::sin(1.7 * r + 2.3 * g + 0.9 * index);  // within 1%
      const double s = slow(index, r, g) * noise;
      f.records.push_back({{"record", "gpu_round"},
                           {"probe", "gpus"},
                           {"phase", phase},
                           {"round", r},
                           {"position", g},
                           {"gpu", g},
                           {"metrics",
                            {{"roundtrip_ns", 2500 * s},
                             {"launch_sync_ns", 9000 * s},
                             {"write_gbs", 52 / s},
                             {"read_gbs", 51 / s},
                             {"copy_d2h_gbs", 55 / s},
                             {"copy_h2d_gbs", 55 / s}}}});
    }
  return f;
}

RunFiles run_of(int launches, int gpus, const Slowdown& slow, const std::string& model = "H100",
                const std::string& host = "node-a") {
  RunFiles run;
  for (int l = 1; l <= launches; ++l) run.push_back(launch(l, gpus, 6, slow, "measure", model, host));
  return run;
}

const Slowdown healthy = [](int, int, int) { return 1.0; };

std::vector<std::string> flagged(const Json& verdict, const std::string& status) {
  std::vector<std::string> out;
  for (const Json& f : verdict.at("flags"))
    if (f.at("status") == status)
      out.push_back(std::to_string(f.at("gpu").get<int>()) + ":" + f.at("metric").get<std::string>());
  return out;
}

TEST(NodeVerdict, AHealthyNodeFlagsNothing) {
  const Json v = node_verdict(run_of(3, 4, healthy), 0.1);
  EXPECT_TRUE(v.at("flags").empty()) << v.dump(1);
  EXPECT_EQ(v.at("gpus"), 4);
  EXPECT_EQ(v.at("launches"), 3);
}

TEST(NodeVerdict, ADeviceSlowedForOneRoundIsNotFlagged) {
  const Json v = node_verdict(run_of(3, 4, [](int l, int r, int g) { return l == 2 && r == 3 && g == 1 ? 16.0 : 1.0; }),
                              0.1);
  EXPECT_TRUE(v.at("flags").empty()) << v.dump(1);
}

TEST(NodeVerdict, ADeviceSlowedInOneLaunchIsNotFlagged) {
  // A process's own state (one launch) moves every round of it: the launches' interval covers it.
  const Json v = node_verdict(run_of(3, 2, [](int l, int, int g) { return l == 1 && g == 0 ? 1.25 : 1.0; }), 0.1);
  EXPECT_TRUE(v.at("flags").empty()) << v.dump(1);
}

TEST(NodeVerdict, ADeviceSlowedThroughoutIsFlaggedThenConfirmedByAReMeasure) {
  const Slowdown slow = [](int, int, int g) { return g == 2 ? 1.5 : 1.0; };
  RunFiles run = run_of(3, 4, slow);
  Json v = node_verdict(run, 0.1);
  EXPECT_EQ(flagged(v, "unconfirmed").size(), 6u) << v.dump(1);  // every metric of GPU 2, not re-measured
  EXPECT_EQ(v.at("remeasure_gpus"), Json::array({2}));
  EXPECT_TRUE(v.at("anomalies").empty());  // nothing counts before the re-measure
  run.push_back(launch(4, 4, 6, slow, "remeasure"));
  v = node_verdict(run, 0.1);
  EXPECT_EQ(flagged(v, "confirmed").size(), 6u) << v.dump(1);
  for (const Json& f : v.at("anomalies")) EXPECT_EQ(f.at("gpu"), 2);
  EXPECT_TRUE(v.at("remeasure_gpus").empty());
  const std::string line = v.at("flags").front().at("line");
  EXPECT_NE(line.find("GPU 2 (0000:02:00.0)"), std::string::npos) << line;
  EXPECT_NE(line.find("confirmed on re-measure"), std::string::npos) << line;
}

TEST(NodeVerdict, AReMeasureThatDoesNotConfirmCallsItATransient) {
  RunFiles run = run_of(3, 4, [](int, int, int g) { return g == 2 ? 1.5 : 1.0; });
  run.push_back(launch(4, 4, 6, healthy, "remeasure"));
  const Json v = node_verdict(run, 0.1);
  EXPECT_EQ(flagged(v, "transient").size(), 6u) << v.dump(1);
  EXPECT_TRUE(v.at("anomalies").empty());
  EXPECT_NE(v.at("flags").front().at("why").get<std::string>().find("not confirmed, a transient"), std::string::npos);
}

TEST(NodeVerdict, NeverForBeingBetterAndOnTwoGpusAgainstTheOther) {
  const Json v = node_verdict(run_of(3, 2, [](int, int, int g) { return g == 1 ? 1.5 : 1.0; }), 0.1);
  const auto found = flagged(v, "unconfirmed");
  ASSERT_EQ(found.size(), 6u) << v.dump(1);
  for (const std::string& f : found) EXPECT_EQ(f.substr(0, 2), "1:");  // GPU 0 is better, never flagged
  EXPECT_EQ(v.at("flags").front().at("reference_kind"), "the other GPU");
}

TEST(NodeVerdict, WithinTheToleranceIsNotFlagged) {
  const Json v = node_verdict(run_of(3, 4, [](int, int, int g) { return g == 0 ? 1.05 : 1.0; }), 0.1);
  EXPECT_TRUE(v.at("flags").empty()) << v.dump(1);
}

TEST(NodeVerdict, ALinkBelowItsMaximumIsFlaggedAsRead) {
  RunFiles run = run_of(3, 2, healthy);
  ResultsFile bw;
  bw.path = "/runs/run/bandwidth.jsonl";
  bw.records = {{{"record", "header"}, {"probe", "bandwidth"}},
                {{"record", "link"},
                 {"probe", "bandwidth"},
                 {"rank", 1},
                 {"status", "ok"},
                 {"below_max", true},
                 {"current_speed_gts", 16.0},
                 {"max_speed_gts", 32.0},
                 {"current_width", 16},
                 {"max_width", 16},
                 {"read_while", "write load at full rate"}}};
  run.push_back(bw);
  const Json v = node_verdict(run, 0.1);
  ASSERT_EQ(flagged(v, "link"), std::vector<std::string>{"1:link_speed_gts"}) << v.dump(1);
  EXPECT_EQ(v.at("anomalies").size(), 1u);
}

TEST(NodeVerdict, OneGpuHasNothingToCompareWith) {
  const Json v = node_verdict(run_of(3, 1, healthy), 0.1);
  EXPECT_TRUE(v.at("flags").empty());
  EXPECT_FALSE(v.at("notes").empty());
}

TEST(NodeVerdict, ARunWithoutRoundsSaysSo) {
  const Json v = node_verdict({}, 0.1);
  EXPECT_EQ(v.at("gpus"), 0);
  EXPECT_NE(v.at("notes").front().get<std::string>().find("no gpus rounds"), std::string::npos);
}

TEST(NodeVerdict, AMalformedVisitNamesItsPlace) {
  RunFiles run = run_of(1, 2, healthy);
  run.front().records[1].erase("round");
  expect_usage_error([&] { (void)node_verdict(run, 0.1); }, "round");
}

TEST(Tolerance, APercentOrAFraction) {
  EXPECT_DOUBLE_EQ(parse_tolerance("10%"), 0.1);
  EXPECT_DOUBLE_EQ(parse_tolerance(" 0.25 "), 0.25);
  EXPECT_DOUBLE_EQ(parse_tolerance("2.5%"), 0.025);
  EXPECT_EQ(tolerance_text(0.1), "10%");
  for (const char* bad : {"0", "-5%", "100%", "150%", "1", "10", "abc", "", "nan", "inf", "10%%", "0x1"})
    expect_usage_error([&] { (void)parse_tolerance(bad); }, "--tolerance");
}

TEST(BaselineVerdict, ARepeatIsWithinAndASlowerGpuIsOutside) {
  const RunFiles base = run_of(3, 2, healthy);
  Json v = baseline_verdict(run_of(3, 2, [](int, int, int) { return 1.03; }), {base}, 0.1);
  EXPECT_TRUE(v.at("outside").empty()) << v.dump(1);
  EXPECT_EQ(v.at("compared"), 12);
  EXPECT_EQ(v.at("baseline_launches"), 3);
  v = baseline_verdict(run_of(3, 2, [](int, int, int g) { return g == 1 ? 1.4 : 1.0; }), {base}, 0.1);
  ASSERT_EQ(v.at("outside").size(), 6u) << v.dump(1);
  for (const Json& o : v.at("outside")) EXPECT_EQ(o.at("gpu"), 1);
  // Better is never outside.
  EXPECT_TRUE(baseline_verdict(run_of(3, 2, [](int, int, int) { return 0.5; }), {base}, 0.1).at("outside").empty());
}

TEST(BaselineVerdict, TheBaselinesLaunchSpreadWidensWhatIsAllowed) {
  // The baseline's launches differ by 20% (a measured spread): a run at its slow end is within.
  const RunFiles base = run_of(3, 2, [](int l, int, int) { return l == 3 ? 1.2 : 1.0; });
  const Json v = baseline_verdict(run_of(3, 2, [](int, int, int) { return 1.25; }), {base}, 0.1);
  EXPECT_TRUE(v.at("outside").empty()) << v.dump(1);
}

TEST(BaselineVerdict, RefusesWhatCannotBeCompared) {
  const RunFiles base = run_of(3, 2, healthy);
  expect_usage_error([&] { (void)baseline_verdict(run_of(3, 4, healthy), {base}, 0.1); }, "has 2 GPU(s) and the run");
  expect_usage_error([&] { (void)baseline_verdict(run_of(3, 2, healthy, "H200"), {base}, 0.1); }, "H200");
  expect_usage_error([&] { (void)baseline_verdict(run_of(3, 2, healthy), {run_of(1, 2, healthy)}, 0.1); }, "1 launch");
  const RunFiles same = run_of(2, 2, healthy);  // a launch given twice: counted once, so refused
  expect_usage_error([&] { (void)baseline_verdict(run_of(3, 2, healthy), {same, same}, 0.1); },
                     "is the launch of the baseline's");
  expect_usage_error([&] { (void)baseline_verdict(run_of(3, 2, healthy), {base, run_of(3, 4, healthy)}, 0.1); },
                     "not runs of one node");
  expect_usage_error(
      [&] { (void)baseline_verdict(run_of(3, 2, healthy), {base, run_of(3, 2, healthy, "H100", "node-b")}, 0.1); },
      "not runs of one node");
  expect_usage_error([&] { (void)baseline_verdict({}, {base}, 0.1); }, "no gpus rounds");
  expect_usage_error([&] { (void)baseline_verdict(run_of(3, 2, healthy), {}, 0.1); }, "--baseline");
  // Two baselines of one launch each make two launches: their spread is measured.
  EXPECT_TRUE(baseline_verdict(run_of(3, 2, healthy), {run_of(1, 2, healthy), run_of(1, 2, healthy)}, 0.1)
                  .at("outside")
                  .empty());
}

TEST(BaselineVerdict, TheNodeBeforeItIsMeasured) {
  const std::vector<RunFiles> base{run_of(3, 2, healthy)};
  check_baseline_node({2, "cuda", {"H100", "H100 (slowed x16 by HETPROBE_HOST_SLOW)"}}, base, "this node");
  expect_usage_error([&] { check_baseline_node({4, "cuda", {}}, base, "this node"); }, "this node 4");
  expect_usage_error([&] { check_baseline_node({2, "hip", {}}, base, "this node"); }, "backend");
  expect_usage_error([&] { check_baseline_node({2, "cuda", {"H200", "H200"}}, base, "this node"); }, "H200");
}

}  // namespace
}  // namespace hetprobe
