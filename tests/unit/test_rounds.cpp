// The statistics of interleaved rounds: the median's interval, the rounds'
// orders, what a ratio's interval claims, launches pooled, and --gap.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "base/effect.hpp"
#include "base/stats.hpp"
#include "bench/core/rounds.hpp"
#include "bench/interference/interference.hpp"
#include "bench/interference/send_gap.hpp"
#include "tests/unit/expect_usage_error.hpp"

namespace hetprobe {
namespace {

TEST(MedianCi, RanksFollowTheBinomialTail) {
  // n < 6: even [min, max] covers less than 95% (1 - 2 / 2^5 = 93.75% at n = 5).
  EXPECT_EQ(median_ci95_rank(5), 0u);
  EXPECT_EQ(median_ci95_rank(6), 1u);   // 1 - 2/64 = 96.9%
  EXPECT_EQ(median_ci95_rank(9), 2u);   // P(B <= 1) = 10/512 = 1.95%
  EXPECT_EQ(median_ci95_rank(10), 2u);  // P(B <= 2) = 56/1024 = 5.5% > 2.5%
  EXPECT_EQ(median_ci95_rank(16), 4u);  // P(B <= 3) = 1.06%, P(B <= 4) = 3.8%
}

TEST(MedianCi, IsTheOrderStatistics) {
  const std::vector<double> v = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
  const auto ci = median_ci95(v);
  ASSERT_TRUE(ci);
  EXPECT_EQ(ci->low, 2);
  EXPECT_EQ(ci->high, 9);
  EXPECT_FALSE(median_ci95(std::vector<double>{1, 2, 3, 4, 5}));
}

TEST(MedianCi, CoversTheTrueMedianAtLeast95Percent) {
  // Lognormal samples (true median 1), 2000 draws of 12: the interval must
  // hold the median in at least 95% of them (exact coverage at n = 12: 96.1%).
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(0, 0.3);
  int covered = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> v(12);
    for (double& x : v) x = dist(rng);
    const auto ci = median_ci95(v);
    covered += ci->low <= 1 && 1 <= ci->high;
  }
  EXPECT_GE(covered, 1900);
}

TEST(RoundOrder, IsAPermutationThatReplays) {
  const auto a = round_order(42, 1024, 0, 9);
  std::vector<std::size_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> identity(9);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(sorted, identity);
  EXPECT_EQ(round_order(42, 1024, 0, 9), a);  // the same seed replays
  EXPECT_NE(round_order(42, 1024, 1, 9), a);  // another round, another order
  EXPECT_NE(round_order(43, 1024, 0, 9), a);  // another seed, another order
  EXPECT_NE(round_order(42, 2048, 0, 9), a);  // another size
}

TEST(RoundOrder, PutsEveryPointFirstAboutEquallyOften) {
  std::vector<int> first(6);
  for (int r = 0; r < 6000; ++r) ++first[round_order(1, 4096, r, 6)[0]];
  for (int n : first) EXPECT_NEAR(n, 1000, 150);
}

TEST(Effect, NeedsTheWholeIntervalBeyondTheMargin) {
  EXPECT_EQ(classify_ratio({1.06, 1.4}), Effect::slowdown);
  EXPECT_EQ(classify_ratio({1.04, 1.4}), Effect::none);
  EXPECT_EQ(classify_ratio({0.5, 0.94}), Effect::speedup);
  EXPECT_EQ(classify_ratio({0.5, 0.96}), Effect::none);
  EXPECT_STREQ(to_string(Effect::slowdown), "slowdown");
}

TEST(PooledLaunches, IntervalFromTheSpreadBetweenLaunches) {
  const PooledRatio two = pool_launch_ratios({1.1, 1.2});
  EXPECT_FALSE(two.ci95);  // two launches: no interval
  EXPECT_DOUBLE_EQ(two.median, 1.15);
  const PooledRatio agree = pool_launch_ratios({1.30, 1.31, 1.29});
  const PooledRatio disagree = pool_launch_ratios({1.0, 1.3, 1.7});
  ASSERT_TRUE(agree.ci95 && disagree.ci95);
  EXPECT_LT(agree.ci95->low, 1.29);
  EXPECT_GT(agree.ci95->high, 1.31);
  EXPECT_EQ(classify_ratio(*agree.ci95), Effect::slowdown);
  EXPECT_EQ(classify_ratio(*disagree.ci95), Effect::none);  // the launches' spread swallows it
  EXPECT_GT(disagree.ci95->high - disagree.ci95->low, 10 * (agree.ci95->high - agree.ci95->low));
  EXPECT_EQ(disagree.min, 1.0);
  EXPECT_EQ(disagree.max, 1.7);
  EXPECT_THROW(pool_launch_ratios({}), std::invalid_argument);
  EXPECT_THROW(pool_launch_ratios({1.0, -1.0}), std::invalid_argument);
}

TEST(PooledLaunches, PointsOfOneSizeShareTheirSpread) {
  // A 1.15x slowdown over 3 launches: alone, t(2) = 4.30 stretches its interval below 1.05; beside four
  // points a little noisier (and one of 2 launches), the pooled variance has 11 degrees of freedom
  // (t = 2.20) and it is claimed.
  const std::vector<double> slow{1.10, 1.15, 1.21};
  const PooledRatio alone = pool_launch_ratios(slow);
  ASSERT_TRUE(alone.ci95);
  EXPECT_EQ(alone.degrees_of_freedom, 2u);
  EXPECT_EQ(classify_ratio(*alone.ci95), Effect::none);
  const std::vector<PooledRatio> side = pool_launch_points(
      {slow, {0.94, 1.0, 1.06}, {1.06, 1.0, 0.94}, {0.95, 1.01, 1.07}, {1.07, 1.01, 0.95}, {1.0, 1.0}, {1.2}});
  ASSERT_EQ(side.size(), 7u);
  ASSERT_TRUE(side[0].ci95);
  EXPECT_EQ(side[0].degrees_of_freedom, 11u);  // 5 points of 3 launches and one of 2; one launch adds nothing
  EXPECT_EQ(classify_ratio(*side[0].ci95), Effect::slowdown);
  EXPECT_DOUBLE_EQ(side[0].median, alone.median);  // the estimate is the point's own
  EXPECT_LT(side[0].ci95->high - side[0].ci95->low, alone.ci95->high - alone.ci95->low);
  EXPECT_FALSE(side[5].ci95);  // under 3 launches: no interval, pooled or not
  EXPECT_FALSE(side[6].ci95);
  // A noisy neighbour widens everyone's interval: the pool is honest about the size's spread.
  const std::vector<PooledRatio> noisy = pool_launch_points({slow, {0.7, 1.0, 1.4}});
  EXPECT_EQ(classify_ratio(*noisy[0].ci95), Effect::none);
  // A point noisier than its quiet neighbours keeps its own spread (and t(2)): 1.0-1.6 claims nothing.
  const std::vector<PooledRatio> one_noisy =
      pool_launch_points({{1.6, 1.0, 1.3}, {1.01, 1.0, 0.99}, {1.0, 1.01, 1.0}, {0.99, 1.0, 1.0}});
  EXPECT_EQ(one_noisy[0].degrees_of_freedom, 2u);
  EXPECT_EQ(classify_ratio(*one_noisy[0].ci95), Effect::none);
  EXPECT_EQ(one_noisy[1].degrees_of_freedom, 8u);
  EXPECT_THROW(pool_launch_points({slow, {}}), std::invalid_argument);
}

TEST(SendGap, ParsesTimesAndSweeps) {
  EXPECT_EQ(parse_send_gap("0").kind, GapKind::none);
  const SendGap spin = parse_send_gap("2ms");
  EXPECT_EQ(spin.kind, GapKind::spin);
  EXPECT_DOUBLE_EQ(spin.seconds, 2e-3);
  EXPECT_EQ(spin.label(), "2ms");
  EXPECT_DOUBLE_EQ(parse_send_gap("500us").seconds, 500e-6);
  const SendGap sweep = parse_send_gap("sweep:64MiB");
  EXPECT_EQ(sweep.kind, GapKind::sweep);
  EXPECT_EQ(sweep.bytes, 64ull << 20);
  EXPECT_EQ(sweep.label(), "sweep:64 MiB");
  EXPECT_EQ(sweep.to_json()["kind"], "sweep");
}

TEST(SendGap, RefusesBadInput) {
  for (const char* bad : {"-1ms", "sweep:0", "sweep:", "2", "2 ms", "1h", "11s", "nan", "sweep:abc", "ms"})
    expect_usage_error([&] { parse_send_gap(bad); }, "gap");
}

TEST(SendGap, SpinTakesItsTime) {
  std::vector<std::uint64_t> buffer;
  const auto t0 = std::chrono::steady_clock::now();
  spend_gap(parse_send_gap("3ms"), buffer);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(3));
  spend_gap(parse_send_gap("sweep:1MiB"), buffer);
  EXPECT_EQ(buffer.size(), (1u << 20) / 8);
}

}  // namespace
}  // namespace hetprobe

namespace hetprobe {
namespace {

// A point's samples: `rounds` rounds of `reps` sends, each send `base_ns`
// times the round's factor (drift shared with the baseline) times the load's
// slowdown, with multiplicative noise of `noise` (lognormal sigma).
PointData synthetic_point(Layout layout, LoadKind load, int rounds, int reps, double slowdown, double noise,
                          std::mt19937_64& rng, const std::vector<double>& drift) {
  PointData p;
  p.key = {1024,
           layout,
           Access::stacked,
           load,
           load == LoadKind::none ? 0 : 1,
           load == LoadKind::none ? std::nullopt : std::optional(parse_load_rate("1"))};
  std::lognormal_distribution<double> jitter(0, noise);
  for (int r = 0; r < rounds; ++r) {
    p.positions.push_back(0);
    for (int i = 0; i < reps; ++i) {
      SideSample s;
      s.send_ns = 1000 * drift[static_cast<std::size_t>(r)] * slowdown * jitter(rng);
      s.round = r;
      p.sender.push_back(s);
      p.receiver.push_back(s);
    }
  }
  return p;
}

InterferenceConfig synthetic_config(int rounds, int reps) {
  InterferenceConfig c;
  c.sizes = {1024};
  c.layouts = {Layout::SSB, Layout::P2AB};
  c.access = {Access::stacked};
  c.rounds = rounds;
  c.reps = reps;
  c.payload_check = PayloadCheck::none;
  c.rates = {{"1", 1, 0}};
  return c;
}

// A baseline point (SSB, no load) and a loaded one (P2AB, write) `slowdown`
// times slower, drawn in that order from `rng` under the same drift.
struct PointPair {
  PointData ssb, loaded;
};
PointPair synthetic_pair(int rounds, int reps, double slowdown, double noise, std::mt19937_64& rng,
                         const std::vector<double>& drift) {
  PointPair p;
  p.ssb = synthetic_point(Layout::SSB, LoadKind::none, rounds, reps, 1.0, noise, rng, drift);
  p.loaded = synthetic_point(Layout::P2AB, LoadKind::write, rounds, reps, slowdown, noise, rng, drift);
  return p;
}
// The loaded point's record, as a ratio to its baseline.
Json paired_record(const InterferenceConfig& c, const PointPair& p) { return point_record(c, p.loaded, &p.ssb, {}); }

TEST(PairedRatio, DriftBetweenRoundsCancelsAndAQuietSlowdownIsClaimed) {
  std::mt19937_64 rng(3);
  std::vector<double> drift;  // the node's conditions move 1.5x between rounds
  for (int r = 0; r < 12; ++r) drift.push_back(1 + 0.5 * (r % 3) / 2.0);
  const InterferenceConfig c = synthetic_config(12, 5);
  const PointPair p = synthetic_pair(12, 5, 1.3, 0.01, rng, drift);
  const Json r = paired_record(c, p);
  EXPECT_NEAR(r["ratio_to_ssb_median"].get<double>(), 1.3, 0.02);
  const Json& ci = r["ratio_to_ssb_ci95"];
  ASSERT_TRUE(ci.is_array());
  EXPECT_LE(ci[0].get<double>(), r["ratio_to_ssb_median"].get<double>());
  EXPECT_GE(ci[1].get<double>(), r["ratio_to_ssb_median"].get<double>());
  EXPECT_GT(ci[0].get<double>(), 1.2);  // the drift is paired away
  EXPECT_EQ(r["effect"], "slowdown");
  EXPECT_EQ(r["ratio_to_ssb_rounds"].size(), 12u);
  EXPECT_EQ(r["send_time_ns"]["round_medians"].size(), 12u);
  // The baseline's own record warns of the drift (1.5x across its rounds).
  const Json base = point_record(c, p.ssb, nullptr, {});
  EXPECT_TRUE(base["ratio_to_ssb_ci95"].is_null());
  ASSERT_FALSE(base["warnings"].empty());
  EXPECT_NE(base["warnings"].back().get<std::string>().find("drifted"), std::string::npos);
}

TEST(PairedRatio, ANoisyDeviceWidensTheIntervalAndClaimsNothing) {
  std::mt19937_64 rng(5);
  const std::vector<double> flat(12, 1.0);
  const InterferenceConfig c = synthetic_config(12, 3);
  const PointPair quiet = synthetic_pair(12, 3, 1.08, 0.02, rng, flat);
  const PointPair noisy = synthetic_pair(12, 3, 1.08, 0.4, rng, flat);
  const Json q = paired_record(c, quiet), n = paired_record(c, noisy);
  const auto width = [](const Json& r) {
    return r["ratio_to_ssb_ci95"][1].get<double>() - r["ratio_to_ssb_ci95"][0].get<double>();
  };
  EXPECT_GT(width(n), 4 * width(q));
  EXPECT_EQ(q["effect"], "slowdown");
  EXPECT_EQ(n["effect"], "none");
}

TEST(PairedRatio, FewerThanSixRoundsHaveNoInterval) {
  std::mt19937_64 rng(9);
  const std::vector<double> flat(5, 1.0);
  const InterferenceConfig c = synthetic_config(5, 4);
  const Json r = paired_record(c, synthetic_pair(5, 4, 1.5, 0.01, rng, flat));
  EXPECT_NEAR(r["ratio_to_ssb_median"].get<double>(), 1.5, 0.05);
  EXPECT_TRUE(r["ratio_to_ssb_ci95"].is_null());
  EXPECT_TRUE(r["effect"].is_null());
}

// Cold sends paired with the warm ones of their own visits: the rounds' drift
// divides out, the ratio has its interval, and without a gap it is null.
TEST(ColdOverWarm, PairsEachRoundsColdWithItsWarmSends) {
  std::mt19937_64 rng(11);
  std::vector<double> drift(10);
  for (int r = 0; r < 10; ++r) drift[static_cast<std::size_t>(r)] = 1 + 0.1 * (r % 4);  // 1.3x across rounds
  InterferenceConfig c = synthetic_config(10, 4);
  PointData cold = synthetic_point(Layout::SSB, LoadKind::none, 10, 4, 2.5, 0.01, rng, drift);
  const PointData warm = synthetic_point(Layout::SSB, LoadKind::none, 10, 4, 1.0, 0.01, rng, drift);
  const Json without = point_record(c, cold, nullptr, {});
  EXPECT_TRUE(without["cold_over_warm_median"].is_null());
  EXPECT_TRUE(without["warm_send_time_ns"].is_null());
  cold.warm_sender = warm.sender;
  const Json r = point_record(c, cold, nullptr, {});
  EXPECT_NEAR(r["cold_over_warm_median"].get<double>(), 2.5, 0.05);
  const Json& ci = r["cold_over_warm_ci95"];
  ASSERT_TRUE(ci.is_array());
  EXPECT_GT(ci[0].get<double>(), 2.4);  // paired: the drift between rounds is not in the interval
  EXPECT_LT(ci[1].get<double>(), 2.6);
  EXPECT_EQ(r["cold_over_warm_rounds"].size(), 10u);
  EXPECT_EQ(r["warm_send_time_ns"]["n"], 40);
}

TEST(WarmColdOrder, HalfColdShuffledPerVisitAndReplayedBySeed) {
  const std::vector<bool> a = warm_cold_order(7, 1024, 0, 0, 4);
  ASSERT_EQ(a.size(), 8u);
  EXPECT_EQ(std::count(a.begin(), a.end(), true), 4);
  EXPECT_EQ(a, warm_cold_order(7, 1024, 0, 0, 4));  // the same seed, size, round and point
  std::set<std::vector<bool>> seen;
  for (int round = 0; round < 8; ++round)
    for (std::size_t point = 0; point < 3; ++point) seen.insert(warm_cold_order(7, 1024, round, point, 4));
  EXPECT_GT(seen.size(), 8u);  // the order differs between visits (70 orders of 4 in 8)
  int differ = 0;
  for (int round = 0; round < 8; ++round)
    differ += warm_cold_order(7, 1024, round, 0, 4) != warm_cold_order(8, 1024, round, 0, 4);
  EXPECT_GT(differ, 4);  // another seed, other orders
}

}  // namespace
}  // namespace hetprobe
