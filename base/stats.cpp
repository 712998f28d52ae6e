#include "base/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace hetprobe {
namespace {

// numpy's _lerp: interpolating from the nearer end keeps the result exact at
// t = 0 and t = 1 and matches numpy bit for bit.
double lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

double mean_of(std::span<const double> samples) {
  double sum = 0;
  for (double x : samples) sum += x;
  return sum / static_cast<double>(samples.size());
}

// Two-pass: subtracting the mean first avoids the cancellation of the
// sum-of-squares formula on timings that are large and close together.
double sample_stddev(std::span<const double> samples, double mean) {
  if (samples.size() < 2) return 0;
  double squares = 0;
  for (double x : samples) squares += (x - mean) * (x - mean);
  return std::sqrt(squares / static_cast<double>(samples.size() - 1));
}

}  // namespace

double percentile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("percentile of no samples");
  // Written so that NaN fails too.
  if (!(q >= 0 && q <= 100)) {
    throw std::invalid_argument("percentile " + std::to_string(q) + " outside [0, 100]");
  }
  // Same operation order as numpy: (n - 1) * (q / 100).
  const double index = static_cast<double>(sorted.size() - 1) * (q / 100);
  const auto below = static_cast<std::size_t>(std::floor(index));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  if (sorted[below] == sorted[above]) return sorted[below];
  return lerp(sorted[below], sorted[above], index - static_cast<double>(below));
}

Summary summarize(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("summary of no samples");
  // NaN has no place in an ordering, and std::sort would misbehave on it.
  if (std::any_of(samples.begin(), samples.end(), [](double x) { return std::isnan(x); })) {
    throw std::invalid_argument("summary of samples containing NaN");
  }
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());

  Summary summary;
  summary.n = sorted.size();
  summary.min = sorted.front();
  summary.max = sorted.back();
  summary.p10 = percentile_sorted(sorted, 10);
  summary.median = percentile_sorted(sorted, 50);
  summary.p90 = percentile_sorted(sorted, 90);
  summary.p99 = percentile_sorted(sorted, 99);
  summary.mean = mean_of(sorted);
  summary.stddev = sample_stddev(sorted, summary.mean);
  return summary;
}

std::size_t median_ci95_rank(std::size_t n) {
  // P(Bin(n, 1/2) <= j), summed term by term in doubles: exact enough for the
  // n of a benchmark (a few to a few thousand rounds).
  double term = std::pow(0.5, static_cast<double>(n)), tail = term;
  std::size_t k = 0;
  for (std::size_t j = 0; j < n && tail <= 0.025; ++j) {
    k = j + 1;  // P(B <= j) = P(B < j + 1) <= 2.5%: rank j + 1 qualifies
    term *= static_cast<double>(n - j) / static_cast<double>(j + 1);
    tail += term;
  }
  return k;
}

std::optional<Interval> median_ci95(std::span<const double> values) {
  const std::size_t k = median_ci95_rank(values.size());
  if (k == 0) return std::nullopt;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return Interval{sorted[k - 1], sorted[sorted.size() - k]};
}

}  // namespace hetprobe
