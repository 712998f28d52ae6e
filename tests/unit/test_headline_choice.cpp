// The interference headline's choices (base/headline_choice.hpp): the largest
// claimed slowdown and its near ties, the fallbacks without a claim or an
// interval, the speed-ups, the steps with the most launches, the typical
// ratio per layout and the share of triad.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/headline_choice.hpp"

namespace hetprobe {
namespace {

// A point with an interval [low, high] and what it claims, as the records judge it.
JudgedPoint judged(double ratio, double low, double high) {
  return {ratio, Interval{low, high}, classify_ratio({low, high})};
}
JudgedPoint unjudged(double ratio) { return {ratio, std::nullopt, std::nullopt}; }

// choose_slowdown's choice of `points`: the index and verdict, and the near ties.
void expect_choice(const std::vector<JudgedPoint>& points, std::size_t chosen, HeadlineVerdict verdict,
                   const std::vector<std::size_t>& ties = {}) {
  const auto choice = choose_slowdown(points);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->chosen, chosen);
  EXPECT_EQ(to_string(choice->verdict), std::string(to_string(verdict)));
  EXPECT_EQ(choice->near_ties, ties);
}

TEST(ChooseSlowdown, NamesTheLargestClaimedNotTheLargestMedian) {
  // 1.3's interval reaches below 1: the largest median, but no claim (nor a near tie: it claims nothing).
  expect_choice({judged(1.02, 0.99, 1.04), judged(1.3, 0.71, 2.29), judged(1.15, 1.07, 1.23)}, 2,
                HeadlineVerdict::claimed);
}

TEST(ChooseSlowdown, NamesEveryClaimThatReachesTheChosenOnesLowEndLargestFirst) {
  const std::vector<JudgedPoint> points{
      judged(1.10, 1.06, 1.12),  // 1.12 reaches 1.11: a tie
      judged(1.20, 1.11, 1.30),  // the largest claim
      judged(1.08, 1.06, 1.10),  // 1.10 < 1.11: not a tie
      judged(1.15, 1.09, 1.25),  // a tie, larger than the first
      judged(1.10, 1.07, 1.11),  // exactly at the low end: a tie, after the first 1.10
  };
  expect_choice(points, 1, HeadlineVerdict::claimed, {3, 0, 4});
}

TEST(ChooseSlowdown, OfEqualRatiosTheFirst) {
  expect_choice({judged(1.2, 1.1, 1.3), judged(1.2, 1.1, 1.3)}, 0, HeadlineVerdict::claimed, {1});
}

TEST(ChooseSlowdown, WithoutAClaimTheLargestMedianWithinNoise) {
  expect_choice({judged(1.04, 0.98, 1.10), judged(1.3, 0.71, 2.29), judged(0.9, 0.8, 0.94)}, 1,
                HeadlineVerdict::within_noise);
}

TEST(ChooseSlowdown, WithoutIntervalsTheLargestMedianUnjudged) {
  expect_choice({unjudged(1.1), unjudged(1.4), unjudged(0.9)}, 1, HeadlineVerdict::no_interval);
  // One point judged (here: no effect) is enough for the verdict to rest on intervals.
  expect_choice({unjudged(1.4), judged(1.0, 0.98, 1.02)}, 0, HeadlineVerdict::within_noise);
}

TEST(ChooseSlowdown, NoPointsNoChoiceAndANanRatioIsRefused) {
  EXPECT_FALSE(choose_slowdown({}));
  const std::vector<JudgedPoint> nan{unjudged(std::numeric_limits<double>::quiet_NaN())};
  EXPECT_THROW(choose_slowdown(nan), std::invalid_argument);
}

TEST(ChooseSpeedup, TheSmallestClaimedSpeedupAndHowMany) {
  const std::vector<JudgedPoint> points{judged(0.8, 0.7, 0.9), judged(0.7, 0.5, 1.0), judged(0.85, 0.8, 0.9),
                                        judged(1.2, 1.1, 1.3)};
  const auto up = choose_speedup(points);
  ASSERT_TRUE(up);
  EXPECT_EQ(up->fastest, 0u);  // 0.7 reaches 1.0: no claim
  EXPECT_EQ(up->count, 2u);
  const std::vector<JudgedPoint> none{judged(1.2, 1.1, 1.3), unjudged(0.5)};
  EXPECT_FALSE(choose_speedup(none));
}

TEST(LargestRatio, TheFirstOfTheLargest) {
  EXPECT_EQ(largest_ratio(std::vector<double>{1.1, 1.3, 1.3, 0.9}), 1u);
  EXPECT_FALSE(largest_ratio(std::vector<double>{}));
}

TEST(FastestTime, TheFirstOfTheSmallest) {
  EXPECT_EQ(fastest_time(std::vector<double>{2300, 2234, 2234, 2500}), 1u);
  EXPECT_FALSE(fastest_time(std::vector<double>{}));
  EXPECT_THROW(fastest_time(std::vector<double>{1, std::nan("")}), std::invalid_argument);
}

TEST(MostLaunchedParts, ThePartsWithTheMostLaunchesEmptyOnesNone) {
  // The loads step launched 3 times, the rate step once: the headline rests on the loads.
  EXPECT_EQ(most_launched_parts({{3, 3, 2}, {1, 1}}), (std::vector<std::size_t>{0}));
  EXPECT_EQ(most_launched_parts({{1}, {3, 1}}), (std::vector<std::size_t>{1}));
  EXPECT_EQ(most_launched_parts({{3, 3}, {}, {3}}), (std::vector<std::size_t>{0, 2}));
  EXPECT_TRUE(most_launched_parts({{}, {}}).empty());
  EXPECT_TRUE(most_launched_parts({}).empty());
}

TEST(TypicalRatio, TheMedianOfEachLayoutInNameOrder) {
  // Skewed, so that the median is not the mean (1.3 and 1.7).
  const std::vector<LayoutRatio> points{{"PSB", 1.0}, {"P2AB", 1.2}, {"PSB", 3.0}, {"P2AB", 1.1},
                                        {"PSB", 1.1}, {"P2AB", 1.9}, {"P2AB", 1.0}};
  const std::vector<LayoutRatio> typical = typical_ratio_per_layout(points);
  ASSERT_EQ(typical.size(), 2u);
  EXPECT_EQ(typical[0].layout, "P2AB");
  EXPECT_DOUBLE_EQ(typical[0].ratio, 1.15);  // an even count: between the middle two
  EXPECT_EQ(typical[1].layout, "PSB");
  EXPECT_DOUBLE_EQ(typical[1].ratio, 1.1);
  EXPECT_TRUE(typical_ratio_per_layout({}).empty());
}

TEST(TriadShare, TrafficAsAPercentageOfTriad) {
  EXPECT_DOUBLE_EQ(*triad_share_percent(52.08, 208.32), 25.0);
  EXPECT_FALSE(triad_share_percent(std::nullopt, 200));
  EXPECT_FALSE(triad_share_percent(std::numeric_limits<double>::quiet_NaN(), 200));
  EXPECT_FALSE(triad_share_percent(50, 0));
}

TEST(HeadlineVerdict, HasANameForEachVerdict) {
  EXPECT_STREQ(to_string(HeadlineVerdict::claimed), "claimed");
  EXPECT_STREQ(to_string(HeadlineVerdict::within_noise), "within_noise");
  EXPECT_STREQ(to_string(HeadlineVerdict::no_interval), "no_interval");
}

}  // namespace
}  // namespace hetprobe
