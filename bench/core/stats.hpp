// Statistics of raw samples, computed in one place for every probe.
#pragma once

#include <cstddef>
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

}  // namespace hetprobe
