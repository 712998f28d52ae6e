// Unit tests for percentiles and sample summaries.
//
// Expected percentiles are numpy.percentile(a, q) with the default "linear"
// method, worked out by hand: index = (n - 1) * q / 100, then linear
// interpolation between the two samples around that index.
#include "base/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace hetprobe {
namespace {

constexpr double kTol = 1e-12;

TEST(PercentileSorted, OneToTen) {
  const std::vector<double> a{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  // numpy.percentile(range(1, 11), [0, 10, 25, 50, 90, 99, 100])
  //   = [1, 1.9, 3.25, 5.5, 9.1, 9.91, 10]
  EXPECT_EQ(percentile_sorted(a, 0), 1.0);
  EXPECT_NEAR(percentile_sorted(a, 10), 1.9, kTol);
  EXPECT_NEAR(percentile_sorted(a, 25), 3.25, kTol);
  EXPECT_NEAR(percentile_sorted(a, 50), 5.5, kTol);
  EXPECT_NEAR(percentile_sorted(a, 90), 9.1, kTol);
  EXPECT_NEAR(percentile_sorted(a, 99), 9.91, kTol);
  EXPECT_EQ(percentile_sorted(a, 100), 10.0);
}

TEST(PercentileSorted, UnevenGaps) {
  const std::vector<double> a{15, 20, 35, 40, 50};
  // numpy.percentile(a, [10, 30, 40, 75, 90, 99]) = [17, 23, 29, 40, 46, 49.6]
  EXPECT_NEAR(percentile_sorted(a, 10), 17.0, kTol);
  EXPECT_NEAR(percentile_sorted(a, 30), 23.0, kTol);
  EXPECT_NEAR(percentile_sorted(a, 40), 29.0, kTol);
  EXPECT_EQ(percentile_sorted(a, 75), 40.0);  // index 3 exactly: no interpolation
  EXPECT_NEAR(percentile_sorted(a, 90), 46.0, kTol);
  EXPECT_NEAR(percentile_sorted(a, 99), 49.6, kTol);
}

TEST(PercentileSorted, EveryIntegerPercentileOfZeroToHundred) {
  std::vector<double> a;
  for (int i = 0; i <= 100; ++i) a.push_back(i);
  for (int q = 0; q <= 100; ++q) EXPECT_NEAR(percentile_sorted(a, q), q, kTol) << q;
}

TEST(PercentileSorted, SingleSampleAndTies) {
  const std::vector<double> one{3.5};
  EXPECT_EQ(percentile_sorted(one, 0), 3.5);
  EXPECT_EQ(percentile_sorted(one, 37.5), 3.5);
  EXPECT_EQ(percentile_sorted(one, 100), 3.5);
  const std::vector<double> ties{2, 2, 2, 7};
  EXPECT_EQ(percentile_sorted(ties, 50), 2.0);
  EXPECT_NEAR(percentile_sorted(ties, 90), 5.5, kTol);  // index 2.7: 2 + 0.7 * 5
}

TEST(PercentileSorted, Throws) {
  const std::vector<double> a{1, 2, 3};
  EXPECT_THROW(percentile_sorted(std::vector<double>{}, 50), std::invalid_argument);
  EXPECT_THROW(percentile_sorted(a, -0.001), std::invalid_argument);
  EXPECT_THROW(percentile_sorted(a, 100.001), std::invalid_argument);
  EXPECT_THROW(percentile_sorted(a, -std::numeric_limits<double>::infinity()), std::invalid_argument);
  EXPECT_THROW(percentile_sorted(a, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
}

TEST(Summarize, UnsortedSamples) {
  const std::vector<double> samples{9, 2, 5, 4, 7, 4, 5, 4};
  const Summary s = summarize(samples);
  // Sorted: 2 4 4 4 5 5 7 9. Mean 5; squared deviations sum to 32, so the
  // sample standard deviation is sqrt(32 / 7) (numpy.std(a, ddof=1)).
  EXPECT_EQ(s.n, 8u);
  EXPECT_EQ(s.min, 2.0);
  EXPECT_EQ(s.max, 9.0);
  EXPECT_NEAR(s.p10, 3.4, kTol);     // index 0.7:  2 + 0.7 * 2
  EXPECT_NEAR(s.median, 4.5, kTol);  // index 3.5:  (4 + 5) / 2
  EXPECT_NEAR(s.p90, 7.6, kTol);     // index 6.3:  7 + 0.3 * 2
  EXPECT_NEAR(s.p99, 8.86, kTol);    // index 6.93: 7 + 0.93 * 2
  EXPECT_NEAR(s.mean, 5.0, kTol);
  EXPECT_NEAR(s.stddev, 2.138089935299395, kTol);
}

TEST(Summarize, SingleSample) {
  const std::vector<double> samples{42.25};
  const Summary s = summarize(samples);
  EXPECT_EQ(s.n, 1u);
  EXPECT_EQ(s.min, 42.25);
  EXPECT_EQ(s.p10, 42.25);
  EXPECT_EQ(s.median, 42.25);
  EXPECT_EQ(s.p90, 42.25);
  EXPECT_EQ(s.p99, 42.25);
  EXPECT_EQ(s.max, 42.25);
  EXPECT_EQ(s.mean, 42.25);
  EXPECT_EQ(s.stddev, 0.0);
}

TEST(Summarize, TwoSamples) {
  const Summary s = summarize(std::vector<double>{3, 1});
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.max, 3.0);
  EXPECT_NEAR(s.p10, 1.2, kTol);
  EXPECT_NEAR(s.median, 2.0, kTol);
  EXPECT_NEAR(s.p99, 2.98, kTol);
  EXPECT_NEAR(s.mean, 2.0, kTol);
  EXPECT_NEAR(s.stddev, std::sqrt(2.0), kTol);  // deviations -1, 1: sqrt(2 / 1)
}

TEST(Summarize, LargeCloseValuesKeepTheirSpread) {
  // A naive sum-of-squares formula loses all digits here.
  const Summary s = summarize(std::vector<double>{1e9 + 1, 1e9 + 2, 1e9 + 3});
  EXPECT_NEAR(s.mean, 1e9 + 2, 1e-6);
  EXPECT_NEAR(s.stddev, 1.0, 1e-9);
}

TEST(Summarize, Throws) {
  EXPECT_THROW(summarize(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(summarize(std::vector<double>{1, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
}

}  // namespace
}  // namespace hetprobe
