// Statistics of raw samples, computed in one place for every probe.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace hetprobe {

struct Summary {
  std::size_t n = 0;
  double min = 0, p10 = 0, median = 0, p90 = 0, p99 = 0, max = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1 in the denominator); 0 when n == 1
};

// Percentile q in [0, 100] of `sorted` (ascending, non-empty) by linear
// interpolation between closest ranks: numpy.percentile's default ("linear",
// Hyndman-Fan type 7). Throws std::invalid_argument on empty input or q
// outside [0, 100].
double percentile_sorted(std::span<const double> sorted, double q);

// Summary of the samples (any order). Throws std::invalid_argument if empty.
Summary summarize(std::span<const double> samples);

// A distribution-free 95% confidence interval of the median: the order
// statistics x(k) and x(n+1-k) (1-based) of the n values, with k the largest
// rank whose binomial tail P(Bin(n, 1/2) < k) is at most 2.5% (Le Boudec,
// "Performance Evaluation of Computer and Communication Systems", Sec. 2.2;
// Hoefler & Belli SC15 Rule 6). Its coverage is at least 95% for any
// continuous distribution. nullopt for fewer than 6 values, where even
// [min, max] covers less than 95%.
struct Interval {
  double low = 0, high = 0;
};
std::optional<Interval> median_ci95(std::span<const double> values);
// The 1-based rank k above, for n values; 0 when n < 6.
std::size_t median_ci95_rank(std::size_t n);

}  // namespace hetprobe
