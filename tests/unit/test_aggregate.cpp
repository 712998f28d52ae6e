// The aggregation stage (bench/aggregate/, bench/interference/interference_aggregate.hpp):
// which records are one launch of which step, and each point pooled over its
// launches, the one place that pools (issue 52).
#include <gtest/gtest.h>

#include <cmath>

#include "bench/aggregate/run_launches.hpp"
#include "bench/interference/interference_aggregate.hpp"
#include "bench/interference/interference_headline.hpp"

namespace hetprobe {
namespace {

Json header(int seed, const char* gap = "0") {
  Json h = Json::parse(R"({"record":"header","probe":"interference","host":"n1","backend":"host",
    "device":{"name":"host"},"config":{"rounds":6,"reps":4}})");
  h["config"]["seed"] = seed;
  h["config"]["gap"] = gap;
  return h;
}

// A point of one launch: its median send time, and its paired ratio with an interval (none for SSB).
Json point(const char* layout, double median, std::optional<double> ratio, std::optional<Interval> ci = {}) {
  Json p = Json::parse(R"({"record":"point","probe":"interference","size_bytes":1024,"access":"stacked",
    "send_mode":"send","writer_side":"sender","gap":{"label":"0","kind":"none","bytes":null},"rounds":6,"reps":4,
    "n":24,"status":"ok"})");
  p["layout"] = layout;
  const bool ssb = std::string(layout) == "SSB";
  p["load_kind"] = ssb ? "none" : "write";
  p["load_gpus"] = ssb ? 0 : 1;
  p["load_rate"] = ssb ? Json() : Json("1");
  p["send_time_ns"] = {{"median", median}, {"round_medians", {median, median, median, median, median, median}}};
  p["ratio_to_ssb_median"] = ratio ? Json(*ratio) : Json();
  p["ratio_to_ssb_ci95"] = ci ? Json{ci->low, ci->high} : Json();
  p["ssb_send_time_ns_median"] = ssb ? Json() : Json(1000.0);
  p["load"] = {{"traffic_during_send_gbs", ssb ? Json() : Json(50.0)}};
  return p;
}

ResultsFile file(const std::string& name, std::vector<Json> records) {
  ResultsFile f;
  f.path = name;
  f.records = std::move(records);
  return f;
}

TEST(SplitLaunch, AStepAndItsLaunchFromTheFilesName) {
  EXPECT_EQ(split_launch("run/interference.launch2.jsonl.gz").step, "interference");
  EXPECT_EQ(split_launch("run/interference.launch2.jsonl.gz").launch, 2);
  EXPECT_EQ(split_launch("interference-rate.jsonl").step, "interference-rate");
  EXPECT_EQ(split_launch("interference-rate.jsonl").launch, 1);
  EXPECT_EQ(split_launch("interference.launch3").launch, 3);  // a launch's name, no suffix
  EXPECT_EQ(split_launch("interference.launch0.jsonl").step, "interference.launch0");
  EXPECT_EQ(launch_file_stem("interference", 1), "interference");
  EXPECT_EQ(launch_file_stem("interference", 2), "interference.launch2");
}

TEST(RunLaunches, SegmentsResumedAndMergedAreLaunchesOfTheirCommand) {
  Json resumed = header(1);
  resumed["resumed"] = true;
  const std::vector<ResultsFile> files = {
      file("interference.jsonl", {header(1), point("SSB", 1000, {}), resumed, point("P2AB", 1100, 1.1)}),
      file("merged.jsonl", {header(2), point("SSB", 1000, {}), header(3, "2ms"), point("SSB", 3000, {})}),
  };
  const std::vector<Launch> l = run_launches(files, "interference");
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].end, 4u);  // the resumed segment continues launch 1
  EXPECT_EQ(l[0].step, "interference");
  EXPECT_EQ(l[1].series, 0u);  // seed 2: the same command
  EXPECT_EQ(l[1].number, 2u);
  EXPECT_EQ(l[1].step, "merged");
  EXPECT_EQ(l[2].series, 1u);  // another gap: another command
  EXPECT_EQ(l[2].number, 1u);
}

TEST(InterferenceAggregate, OneLaunchKeepsItsOwnIntervalThreePoolTheirs) {
  const Interval own{1.02, 1.2};
  std::vector<ResultsFile> one = {
      file("interference.jsonl", {header(1), point("SSB", 1000, {}), point("P2AB", 1100, 1.1, own)})};
  const std::vector<InterferenceAggregate> a = aggregate_interference(one);
  ASSERT_EQ(a.size(), 2u);
  const PooledReading& r = a[1].ratio_to_ssb;
  EXPECT_EQ(*r.median, 1.1);
  EXPECT_EQ(r.ci95->low, own.low);
  EXPECT_EQ(*r.ci95_over, IntervalOver::rounds);
  EXPECT_EQ(*r.effect, Effect::none);  // 1.02 is within 5% of 1
  EXPECT_EQ(*a[1].send_time_ns.ci95_over, IntervalOver::rounds);
  EXPECT_FALSE(a[0].ratio_to_ssb.median);  // SSB has no ratio

  std::vector<ResultsFile> three;
  for (int k = 0; k < 3; ++k)
    three.push_back(file(launch_file_stem("interference", k + 1) + ".jsonl",
                         {header(k), point("SSB", 1000 + k, {}), point("P2AB", 1300 + k, 1.3 + 0.01 * k, own)}));
  const std::vector<InterferenceAggregate> p = aggregate_interference(three);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[1].launches, (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(p[1].n, 72);
  EXPECT_DOUBLE_EQ(*p[1].ratio_to_ssb.median, 1.31);
  EXPECT_EQ(*p[1].ratio_to_ssb.ci95_over, IntervalOver::launches);
  EXPECT_EQ(*p[1].ratio_to_ssb.effect, Effect::slowdown);
  EXPECT_DOUBLE_EQ(*p[1].send_time_ns.median, 1301);
  EXPECT_EQ(*p[1].send_time_ns.ci95_over, IntervalOver::launches);
  EXPECT_LT(p[1].send_time_ns.ci95->low, 1300);
  EXPECT_GT(p[1].send_time_ns.ci95->high, 1302);
  EXPECT_DOUBLE_EQ(*p[1].traffic_gbs.median, 50);
  // Two launches: a median, no interval, no effect.
  three.pop_back();
  const PooledReading two = aggregate_interference(three)[1].ratio_to_ssb;
  EXPECT_DOUBLE_EQ(*two.median, 1.305);
  EXPECT_FALSE(two.ci95);
  EXPECT_FALSE(two.effect);
}

TEST(InterferenceAggregate, BeforeTheRoundsARatioIsTheMedianOverItsLaunchsSsb) {
  Json old = point("P2AB", 1500, {});
  old.erase("ssb_send_time_ns_median");
  const std::vector<ResultsFile> f = {file("old.jsonl", {header(1), point("SSB", 1000, {}), old})};
  const InterferenceAggregate a = aggregate_interference(f)[1];
  EXPECT_DOUBLE_EQ(*a.ratio_to_ssb.median, 1.5);
  EXPECT_FALSE(a.ratio_to_ssb.ci95);
  EXPECT_DOUBLE_EQ(*a.ssb_send_time_ns.median, 1000);
}

TEST(InterferenceAggregate, AMalformedPointIsNamed) {
  Json bad = point("P2AB", 1100, 1.1);
  bad["ratio_to_ssb_ci95"] = "wide";
  std::vector<ResultsFile> f = {file("bad.jsonl", {header(1), bad})};
  f[0].lines = {1, 7};
  try {
    aggregate_interference(f);
    FAIL() << "a malformed interval was pooled";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:7: field 'ratio_to_ssb_ci95'"), std::string::npos) << e.what();
  }
}

TEST(InterferenceAggregate, TheRecordNamesItsStepLaunchesAndFiles) {
  const std::vector<ResultsFile> f = {file("interference.jsonl",
                                           {header(1), point("SSB", 1000, {}), point("P2AB", 1100, 1.1)}),
                                      file("interference.launch2.jsonl",
                                           {header(2), point("SSB", 1000, {}), point("P2AB", 1200, 1.2)})};
  const std::vector<InterferenceAggregate> a = aggregate_interference(f);
  const Json r = aggregate_record(a[1], f);
  EXPECT_EQ(r["record"], "aggregate");
  EXPECT_EQ(r["step"], "interference");
  EXPECT_EQ(r["launch_numbers"], Json::array({1, 2}));
  EXPECT_EQ(r["files"], Json::array({"interference.jsonl", "interference.launch2.jsonl"}));
  EXPECT_EQ(r["ratio_to_ssb"]["per_launch"], Json::array({1.1, 1.2}));
  EXPECT_TRUE(r["ratio_to_ssb"]["ci95"].is_null());
  EXPECT_EQ(r["load_rate"], "1");
  EXPECT_TRUE(aggregate_record(a[0], f)["ratio_to_ssb"].is_null());
}

}  // namespace
}  // namespace hetprobe

namespace hetprobe {
namespace {

// Three launches of the loads (one point claims a slowdown), one of the rates and one cold launch.
std::vector<ResultsFile> characterized() {
  std::vector<ResultsFile> files;
  for (int k = 0; k < 3; ++k)
    files.push_back(file(launch_file_stem("interference", k + 1) + ".jsonl",
                         {header(k), point("SSB", 1000, {}), point("P2AB", 1300 + k, 1.3 + 0.01 * k, {{1.2, 1.4}}),
                          point("PCB", 1020, 1.0 + 0.01 * k, {{0.9, 1.1}})}));
  Json rates = header(7);
  rates["config"]["load_rates"] = {"0.5", "1"};  // another command than the loads'
  files.push_back(file("interference-rate.jsonl",
                       {rates, point("SSB", 1000, {}), point("P2AB", 1900, 1.9, {{1.8, 2.0}})}));
  files.push_back(file("interference-cold.jsonl",
                       {header(8, "2ms"), point("SSB", 3000, {}), point("P2AB", 2700, 0.9, {{0.85, 0.93}})}));
  return files;
}

TEST(InterferenceHeadline, TheClaimedSlowdownOfTheMostLaunchedWarmStep) {
  const std::vector<ResultsFile> files = characterized();
  const std::vector<InterferenceAggregate> a = aggregate_interference(files);
  const InterferenceHeadline h = interference_headline(a);
  ASSERT_TRUE(h.judged);
  EXPECT_EQ(h.warm_steps, std::vector<std::string>{"interference"});  // 3 launches, not the rate step's 1
  ASSERT_TRUE(h.warm);
  EXPECT_EQ(a[h.warm->point].step, "interference");
  EXPECT_EQ(a[h.warm->point].key.layout, Layout::P2AB);
  EXPECT_EQ(h.warm->verdict, HeadlineVerdict::claimed);
  ASSERT_TRUE(h.cold);
  EXPECT_EQ(h.cold->verdict, HeadlineVerdict::within_noise);  // 0.9 is no slowdown
  ASSERT_TRUE(h.speedup);                                     // the cold point's interval lies wholly below 0.95
  EXPECT_EQ(a[h.speedup->fastest].step, "interference-cold");
  const Json n = headline_numbers(h, a);
  EXPECT_DOUBLE_EQ(n["warm"]["value"].get<double>(), 1.31);
  EXPECT_EQ(n["warm"]["effect"], "slowdown");
  EXPECT_EQ(n["warm"]["interval_over"], "launches");
  EXPECT_EQ(n["warm"]["point"]["size_bytes"], 1024);
  EXPECT_EQ(n["warm"]["launches"], 3);
  EXPECT_LT(n["warm"]["lower"].get<double>(), 1.3);
  EXPECT_TRUE(n["worst"].is_null());
}

// The paper's writer: its largest ratio and each layout's typical one, from
// the paper step alone (the loads' larger ratios are not its).
TEST(InterferenceHeadline, ThePapersWriterFromItsOwnStep) {
  std::vector<ResultsFile> files = characterized();
  Json paper = header(9);
  paper["config"]["paper"] = true;
  files.push_back(file("interference-paper.jsonl",
                       {paper, point("SSB", 1000, {}), point("P2AB", 1100, 1.1, {{1.0, 1.2}}),
                        point("PCB", 1200, 1.2, {{1.1, 1.3}})}));
  const std::vector<InterferenceAggregate> a = aggregate_interference(files);
  const InterferenceHeadline h = interference_headline(a);
  ASSERT_TRUE(h.paper_largest);
  EXPECT_EQ(a[*h.paper_largest].step, "interference-paper");
  EXPECT_EQ(a[*h.paper_largest].key.layout, Layout::PCB);
  ASSERT_EQ(h.paper_typical.size(), 2u);
  EXPECT_EQ(h.paper_typical[0].layout, "P2AB");
  EXPECT_DOUBLE_EQ(h.paper_typical[0].ratio, 1.1);
  const Json n = headline_numbers(h, a);
  EXPECT_DOUBLE_EQ(n["paper_largest"]["value"].get<double>(), 1.2);
  EXPECT_EQ(n["paper_typical"][1], (Json{{"layout", "PCB"}, {"ratio_to_ssb", 1.2}}));
  EXPECT_FALSE(interference_headline(aggregate_interference(characterized())).paper_largest);  // no paper step
}

TEST(InterferenceHeadline, BeforeTheRoundsTheWorstMedianRatio) {
  Json old = point("P2AB", 1500, {});
  old.erase("rounds");
  Json ssb = point("SSB", 1000, {});
  ssb.erase("rounds");
  const std::vector<ResultsFile> f = {file("interference.jsonl", {header(1), ssb, old})};
  const std::vector<InterferenceAggregate> a = aggregate_interference(f);
  const InterferenceHeadline h = interference_headline(a);
  EXPECT_FALSE(h.judged);
  EXPECT_FALSE(h.warm);
  ASSERT_TRUE(h.worst);
  EXPECT_DOUBLE_EQ(*a[*h.worst].ratio_to_ssb.median, 1.5);
  EXPECT_EQ(headline_numbers(h, a)["worst"]["verdict"], Json());
}

}  // namespace
}  // namespace hetprobe
