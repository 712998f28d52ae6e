// The node model (bench/model/): its fit recovers known parameters from
// synthetic series within 2%, its slowdown interpolates as documented, and its
// prediction of a two-rank halo iteration is the queue docs/metrics.md gives,
// on a file small enough to work out by hand; what it cannot place is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "bench/model/halo_prediction.hpp"
#include "bench/model/model_inputs.hpp"
#include "bench/model/node_model.hpp"
#include "tests/unit/expect_usage_error.hpp"

namespace hetprobe {
namespace {

constexpr double kAlpha = 1.2e-6, kBeta = 1.1e-10;  // 1.2 us, 9.1 GB/s
const std::vector<std::uint64_t> kSizes{1024, 65536, 1048576, 16777216};
const std::vector<double> kGamma{0, 0.001, 0.002, 0.004};  // per GB/s, at each size

// A deterministic +-1% wobble per round and series: noise the fit must see through.
double wobble(int round, int series, double size) { return size * std::sin(1.7 * round + 2.3 * series); }

std::vector<IdleSeries> idle(int rounds) {
  std::vector<IdleSeries> out;
  for (std::size_t s = 0; s < kSizes.size(); ++s) {
    IdleSeries series{kSizes[s], {}};
    for (int r = 0; r < rounds; ++r)
      series.round_medians_ns.push_back((kAlpha + kBeta * kSizes[s]) * 1e9 * (1 + wobble(r, int(s), 0.01)));
    out.push_back(series);
  }
  return out;
}

std::vector<LoadedSeries> loaded(int rounds) {
  std::vector<LoadedSeries> out;
  for (std::size_t s = 0; s < kSizes.size(); ++s)
    for (double traffic : {25.0, 50.0, 100.0}) {
      LoadedSeries p{kSizes[s], traffic, {}};
      for (int r = 0; r < rounds; ++r)
        p.round_ratios.push_back(1 + kGamma[s] * traffic + wobble(r, int(s) + int(traffic), 0.0005));
      out.push_back(p);
    }
  return out;
}

// What no send can be is marked, with why: times that fall with size give a
// negative beta; a line through two points of one size that overshoots the
// larger of their ratios is not what they measured.
TEST(NodeModel, MarksWhatNoSendCanBe) {
  std::vector<IdleSeries> falling;
  for (std::size_t s = 0; s < kSizes.size(); ++s)
    falling.push_back({kSizes[s], std::vector<double>(6, 100e3 - 5e3 * static_cast<double>(s))});
  const std::vector<LoadedSeries> overshoot{{65536, 1, std::vector<double>(6, 2.0)},
                                            {65536, 2, std::vector<double>(6, 2.2)}};
  const NodeModel m = fit_node_model(falling, overshoot);
  ASSERT_TRUE(m.beta_s_per_byte.implausible);
  EXPECT_NE(m.beta_s_per_byte.implausible->find("fall with size"), std::string::npos);
  EXPECT_FALSE(m.alpha_s.implausible);  // 100 us at 1 KiB: a latency above 0
  for (const SendSegment& seg : m.segments) EXPECT_TRUE(seg.beta_s_per_byte.implausible) << seg.from_bytes;
  ASSERT_EQ(m.slowdown.size(), 1u);
  ASSERT_TRUE(m.slowdown[0].gamma_per_gbs.implausible);  // 1 + 0.68 x 2 = 2.36 x, above the 2.2 measured
  EXPECT_NE(m.slowdown[0].gamma_per_gbs.implausible->find("outside the 1-2.2 x"), std::string::npos)
      << *m.slowdown[0].gamma_per_gbs.implausible;
  EXPECT_EQ(to_json(m)["beta_s_per_byte"]["implausible"], *m.beta_s_per_byte.implausible);
  EXPECT_TRUE(to_json(m)["alpha_s"]["implausible"].is_null());
}

TEST(NodeModel, RecoversKnownParametersWithin2Percent) {
  const NodeModel m = fit_node_model(idle(10), loaded(10));
  EXPECT_NEAR(m.alpha_s.median / kAlpha, 1, 0.02);
  EXPECT_NEAR(m.beta_s_per_byte.median / kBeta, 1, 0.02);
  ASSERT_TRUE(m.alpha_s.ci95 && m.beta_s_per_byte.ci95);  // 10 rounds: an interval each
  EXPECT_LE(m.beta_s_per_byte.ci95->low, kBeta * 1.02);
  EXPECT_GE(m.beta_s_per_byte.ci95->high, kBeta * 0.98);
  ASSERT_EQ(m.slowdown.size(), kSizes.size());
  for (std::size_t s = 1; s < kSizes.size(); ++s) {  // gamma(1 KiB) = 0: an absolute bound
    EXPECT_EQ(m.slowdown[s].bytes, kSizes[s]);
    EXPECT_NEAR(m.slowdown[s].gamma_per_gbs.median / kGamma[s], 1, 0.02) << kSizes[s];
    EXPECT_EQ(m.slowdown[s].points, 3u);
    EXPECT_EQ(m.slowdown[s].traffic_max_gbs, 100.0);
    EXPECT_FALSE(m.slowdown[s].gamma_per_gbs.implausible) << *m.slowdown[s].gamma_per_gbs.implausible;
  }
  EXPECT_FALSE(m.alpha_s.implausible || m.beta_s_per_byte.implausible);
  EXPECT_NEAR(m.slowdown[0].gamma_per_gbs.median, 0, 2e-5);
}

// A path whose bytes cost more above 1 MiB (caches), with a rendezvous
// handshake from 4 KiB: each segment's line is recovered within 2%, a message
// takes its own segment's line (the nearest outside), and an eager one the
// line over every size where the eager side has one size only.
TEST(NodeModel, SegmentsRecoverEachSidesLinesWithin2Percent) {
  constexpr double kRendezvousAlpha = 5e-6, kCachedBeta = 1e-10, kStreamedBeta = 1.3e-10;
  const auto truth = [&](double n) {
    if (n < 4096) return kAlpha + kBeta * n;
    const double mib = 1048576;
    return kRendezvousAlpha + kCachedBeta * std::min(n, mib) + kStreamedBeta * std::max(0.0, n - mib);
  };
  std::vector<IdleSeries> series;
  for (std::size_t s = 0; s < kSizes.size(); ++s) {
    IdleSeries one{kSizes[s], {}};
    for (int r = 0; r < 10; ++r)
      one.round_medians_ns.push_back(truth(kSizes[s]) * 1e9 * (1 + wobble(r, int(s), 0.002)));
    series.push_back(one);
  }
  series.push_back(series[1]);  // a size measured by two series (the interference and rate steps): pooled
  const NodeModel m = fit_node_model(series, {}, 4096);
  ASSERT_EQ(m.segments.size(), 2u);  // 1 KiB alone on the eager side
  EXPECT_EQ(m.segments[0].from_bytes, 65536u);
  EXPECT_EQ(m.segments[0].to_bytes, 1048576u);
  EXPECT_TRUE(m.segments[0].rendezvous && m.segments[1].rendezvous);
  EXPECT_NEAR(m.segments[0].alpha_s.median / kRendezvousAlpha, 1, 0.02);
  EXPECT_NEAR(m.segments[0].beta_s_per_byte.median / kCachedBeta, 1, 0.02);
  EXPECT_NEAR(m.segments[1].beta_s_per_byte.median / kStreamedBeta, 1, 0.02);
  EXPECT_NEAR(m.send_time_s(240000) / truth(240000), 1, 0.02);  // inside the first segment
  EXPECT_NEAR(m.send_time_s(60000) / truth(60000), 1, 0.02);    // below it: its line, extended
  EXPECT_NEAR(m.send_time_s(4194304) / truth(4194304), 1, 0.02);
  EXPECT_NEAR(m.send_line(1 << 25).beta_s_per_byte / kStreamedBeta, 1, 0.02);  // above: the last one's
  EXPECT_DOUBLE_EQ(m.send_line(1024).beta_s_per_byte, m.beta_s_per_byte.median);
  // Without an eager limit the sizes are one side: three segments, 1 KiB to 64 KiB the first.
  const NodeModel one_side = fit_node_model(series, {});
  ASSERT_EQ(one_side.segments.size(), 3u);
  EXPECT_FALSE(one_side.segments[0].rendezvous);
  for (double n : {1024.0, 65536.0}) EXPECT_NEAR(one_side.send_time_s(n) / truth(n), 1, 0.02) << n;
}

// The eager limit comes from the SSB points' MPI path: bytes, or null (not
// known); a damaged value is refused, never wrapped into a huge limit.
TEST(NodeModel, ReadsTheEagerLimitOfTheSsbPoints) {
  const auto run = [](const Json& limit) {
    NodeRun r;
    ResultsFile f;
    f.path = "interference.jsonl";
    f.records = {Json{{"record", "header"}, {"probe", "interference"}},
                 Json{{"record", "point"},
                      {"layout", "SSB"},
                      {"size_bytes", 65536},
                      {"send_time_ns", {{"round_medians", {11000.0, 12000.0}}}},
                      {"mpi_path", {{"eager_limit_bytes", limit}}}}};
    r.files.push_back(f);
    return fit_inputs(r);
  };
  EXPECT_EQ(run(4096).eager_limit_bytes, 4096u);
  EXPECT_FALSE(run(nullptr).eager_limit_bytes);
  expect_usage_error([&] { run(-1); }, "eager_limit_bytes");
  expect_usage_error([&] { run(4096.5); }, "eager_limit_bytes");
}

TEST(NodeModel, FiveRoundsGiveNoInterval) {
  const NodeModel m = fit_node_model(idle(5), loaded(5));
  EXPECT_EQ(m.alpha_s.rounds, 5u);
  EXPECT_FALSE(m.alpha_s.ci95);  // median_ci95 needs 6
}

TEST(NodeModel, SlowdownInterpolatesInLogSizeAndHoldsOutside) {
  NodeModel m;
  m.slowdown = {{1024, {0.001, {}, 6, {}}, 3, 100}, {1048576, {0.004, {}, 6, {}}, 3, 100}};
  EXPECT_DOUBLE_EQ(m.slowdown_at(1024, 10), 1.01);
  EXPECT_DOUBLE_EQ(m.slowdown_at(512, 10), 1.01);                 // below the smallest: held
  EXPECT_DOUBLE_EQ(m.slowdown_at(1 << 24, 10), 1.04);             // above the largest: held
  EXPECT_NEAR(m.slowdown_at(32768, 10), 1 + 0.0025 * 10, 1e-12);  // halfway in log2: 10 -> 15 -> 20
  EXPECT_DOUBLE_EQ(m.slowdown_at(32768, 0), 1);                   // no traffic, no slowdown
}

TEST(NodeModel, NeedsTwoSizesInEveryRound) {
  expect_usage_error([] { fit_node_model({{1024, {1000, 1100}}}, {}); }, "2 sizes or more");
  expect_usage_error([] { fit_node_model({}, {}); }, "no SSB point");
}

// A halo file of two ranks: rank 0 sends A (1000 B) at 0 ns, rank 1 sends B
// (2000 B) at 500 ns; A is received at 2500 ns, B at 5000 ns.
ResultsFile two_messages(int second_rank = 1, const char* kept = "all") {
  const auto rec = [&](int rank, std::uint64_t send_bytes, double send_at, std::uint64_t recv_bytes, double recv_at) {
    const int peer = rank == 0 ? second_rank : 0;
    return Json{{"record", "halo"},
                {"probe", "halo"},
                {"rank", rank},
                {"layout", "file x"},
                {"cube", 0},
                {"setup", "baseline isend waitall pinned 128t"},
                {"variant", "baseline"},
                {"pack", {{{"tag", rank}, {"kind", "face"}, {"bytes", send_bytes}, {"peer", peer}}}},
                {"unpack", {{{"tag", 1 - rank}, {"kind", "face"}, {"bytes", recv_bytes}, {"peer", peer}}}},
                {"timeline",
                 {{"kept", kept},
                  {"iteration_index", {0}},
                  {"iterations",
                   {{{"send_ns", {send_at}},
                     {"recv_ns", {recv_at}},
                     {"pack_start_ns", {-100.0}},
                     {"pack_end_ns", {0.0}},
                     {"unpack_start_ns", {recv_at}},
                     {"unpack_end_ns", {recv_at + 100}}}}}}}};
  };
  ResultsFile f;
  f.path = "two.jsonl";
  f.records = {Json{{"record", "header"}, {"probe", "halo"}}, rec(0, 1000, 0, 2000, 5000),
               rec(second_rank, 2000, 500, 1000, 2500)};
  return f;
}

TEST(HaloPrediction, QueuesBytesBehindEachOtherAndLatencyBesideThem) {
  NodeModel m;
  m.alpha_s.median = 1e-6;          // 1000 ns
  m.beta_s_per_byte.median = 1e-9;  // 1 ns/B
  const auto p = predict_halo(m, two_messages());
  ASSERT_EQ(p.size(), 1u);
  // A: max(0 + 1000, 0) + 1000 = 2000; B: max(500 + 1000, 2000) + 2000 = 4000; seen by rank 0 at 4000.
  ASSERT_EQ(p[0].predicted_ns.size(), 1u);
  EXPECT_DOUBLE_EQ(p[0].predicted_ns[0], 4000);
  EXPECT_DOUBLE_EQ(p[0].measured_ns[0], 5000);
  EXPECT_DOUBLE_EQ(p[0].error_median, 4000.0 / 5000 - 1);
  // The traffic in the window [0, 5000]: rank 1's unpack of A (1000 B, 2500-2600) and rank 0's
  // pack's end at 0 (none of it inside): 1000 B / 5000 ns.
  EXPECT_DOUBLE_EQ(p[0].traffic_gbs[0], 0.2);
}

TEST(HaloPrediction, RefusesWhatItCannotPlace) {
  NodeModel m;
  expect_usage_error([&] { predict_halo(m, two_messages(2)); }, "the model places");
  expect_usage_error([&] { predict_halo(m, two_messages(1, "median")); }, "--timeline all");
  ResultsFile one_rank = two_messages();
  one_rank.records.pop_back();
  expect_usage_error([&] { predict_halo(m, one_rank); }, "one rank only");
}

}  // namespace
}  // namespace hetprobe
