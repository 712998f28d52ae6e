// A point of the interference sweep carries its load rate as a value
// (LoadRate), so a run and --resume find a point by its rate, not by how the
// rate was written.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/interference/interference.hpp"
#include "bench/interference/interference_resume.hpp"
#include "bench/load/load_options.hpp"
#include "expect_usage_error.hpp"

namespace hetprobe {
namespace {

const std::string kData = HETPROBE_TEST_DATA_DIR "/../../notebooks/data/";

TEST(LoadRate, EqualByValueWhateverItsSpelling) {
  const LoadRate half = parse_load_rate("0.5"), percent = parse_load_rate("50%");
  EXPECT_EQ(half, percent);
  EXPECT_EQ(percent.label, "50%");  // records keep it as it was given
  EXPECT_NE(parse_load_rate("12GB/s"), half);
  EXPECT_LT(parse_load_rate("0.25"), half);
  EXPECT_TRUE(parse_load_rate("100%").full());
  EXPECT_FALSE(parse_load_rate("1GB/s").full());
  expect_usage_error([] { parse_load_rates("50%,0.5"); }, "load rate 0.5 is listed twice");
}

// The sweep's points carry the config's rates, the SSB baseline none.
TEST(PointKey, TheSweepCarriesEachLoadRate) {
  InterferenceConfig c;
  c.sizes = {1024};
  c.layouts = {Layout::SSB, Layout::PCB};
  c.access = {Access::stream};
  c.rates = parse_load_rates("0.25,12GB/s");
  const std::vector<PointKey> points = sweep_points(c);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_FALSE(points[0].rate);
  EXPECT_EQ(points[1].rate->fraction, 0.25);
  EXPECT_EQ(points[2].rate->gbs, 12);
  EXPECT_EQ(describe(points[2]), "1 KiB stream PCB write x1 @12GB/s");
  c.rates = parse_load_rates("100%");
  EXPECT_EQ(describe(sweep_points(c)[1]), "1 KiB stream PCB write x1");  // a full rate is not named
}

// The probe's allocation holds the secondary region only when the sender
// GPU's load lands in it: SSB and OWN alone pin the send buffer, not 512 MiB more.
TEST(PointKey, AllocationHoldsTheSecondaryOnlyWhereALoadLandsInIt) {
  InterferenceConfig c;
  c.sizes = {1024, 16 * kMiB};
  c.load_bytes = parse_load_bytes("512MiB");
  c.layouts = {Layout::SSB, Layout::OWN};
  EXPECT_EQ(interference_allocation_bytes(c), allocation_bytes(16 * kMiB, 0));
  for (Layout beside : {Layout::PSB, Layout::PCB, Layout::P2AB}) {
    c.layouts = {Layout::SSB, Layout::OWN, beside};
    EXPECT_EQ(interference_allocation_bytes(c), allocation_bytes(16 * kMiB, 512 * kMiB)) << to_string(beside);
  }
}

// --resume of a committed run at rates 0.25, 0.5, 0.75 and 1: a config that
// writes them as percentages finds every one of its points done.
TEST(PointKey, ResumeFindsPointsByTheirRate) {
  const ResultsFile file = read_results(kData + "h100-characterize-default/run-1/interference-rate.jsonl.gz");
  const Json& config = file.records.front()["config"];
  const ResumedPoints resumed = resumed_points(file, config, "cuda");
  InterferenceConfig c;
  for (const Json& s : config["sizes_bytes"]) c.sizes.push_back(s.get<std::uint64_t>());
  c.layouts = {Layout::SSB, Layout::P2AB};
  c.access = {Access::stacked};
  c.rates = parse_load_rates("25%,50%,75%,100%");
  const std::vector<PointKey> sweep = sweep_points(c);
  ASSERT_EQ(sweep.size(), 20u);
  for (const PointKey& k : sweep) EXPECT_EQ(resumed.done.count(k), 1u) << describe(k);
  // A rate the file does not have is not done.
  c.rates = parse_load_rates("0.6");
  EXPECT_EQ(resumed.done.count(sweep_points(c).back()), 0u);
}

// A file from before payload_check checked every payload: --resume takes it
// only into a run that does the same (--check-every).
TEST(PointKey, ResumeKeepsOneFilesPayloadCheck) {
  const ResultsFile file = read_results(kData + "h100-characterize-default/run-1/interference-rate.jsonl.gz");
  Json config = file.records.front()["config"];
  ASSERT_FALSE(config.contains("payload_check"));
  config["payload_check"] = to_string(PayloadCheck::last_of_visit);
  expect_usage_error([&] { (void)resumed_points(file, config, "cuda"); },
                     "payload_check = \"every send\", this run has \"last of each visit\"");
  config["payload_check"] = to_string(PayloadCheck::every_send);
  EXPECT_FALSE(resumed_points(file, config, "cuda").done.empty());
}

TEST(PointKey, ARecordsRateThatIsNoRateIsTheFilesFault) {
  Json r{{"record", "point"},    {"size_bytes", 1024}, {"layout", "PCB"},    {"access", "stream"},
         {"load_kind", "write"}, {"load_gpus", 1},     {"load_rate", "fast"}};
  expect_usage_error([&] { point_key({r, "r.jsonl:3"}); }, "r.jsonl:3: field 'load_rate'");
  r["load_rate"] = "0.5";
  EXPECT_EQ(point_key({r, "r.jsonl:3"}).rate, parse_load_rate("50%"));
}

}  // namespace
}  // namespace hetprobe
