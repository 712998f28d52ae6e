// Least-squares fit of the host clock against a device timer from ping-pong sync samples. Ticks are
// differenced as integers against a reference tick before any double arithmetic, and the fit works
// on centered sums, so timers near 1.8e18 ticks still resolve to well below a nanosecond.
#include "bench/protocols/clock_fit.hpp"

#include "base/errors.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>

namespace hetprobe {
namespace {

// Signed tick distance; unsigned subtraction wraps, and the conversion back to signed is exact
// (C++20 two's complement) for any distance a real timer can cover.
double ticks_since(std::uint64_t ticks, std::uint64_t ref) {
  return static_cast<double>(static_cast<std::int64_t>(ticks - ref));
}

// Sample midpoint in ticks from ref: a half-integer, exact in a double.
double midpoint_ticks(const ClockSample& s, std::uint64_t ref) {
  return ticks_since(s.device_start, ref) + 0.5 * static_cast<double>(s.interval_ticks());
}

// host_ns - midpoint_host_ns(s), subtracting the two large host values first so a host clock far
// from zero does not round the small difference away.
double residual(const ClockMapping& m, const ClockSample& s) {
  return (s.host_ns - m.host_ref_ns) - m.ns_per_tick * midpoint_ticks(s, m.device_ref);
}

double half_interval_ns(const ClockMapping& m, const ClockSample& s) {
  return 0.5 * static_cast<double>(s.interval_ticks()) * std::abs(m.ns_per_tick);
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

void check_samples(const std::vector<ClockSample>& samples) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const ClockSample& s = samples[i];
    if (s.device_end < s.device_start) {
      throw Error(ErrorKind::check, "clock sample " + std::to_string(i) + ": device_end " +
                                        std::to_string(s.device_end) + " < device_start " +
                                        std::to_string(s.device_start));
    }
    if (!std::isfinite(s.host_ns)) {
      throw Error(ErrorKind::check, "clock sample " + std::to_string(i) + ": host_ns is not finite");
    }
  }
}

// The samples `filter` keeps, per input sample; `longest` gets the longest kept interval. The
// windows are n / window_samples equal-count runs (at least one) of the samples in host-time order
// (input order among equal stamps).
std::vector<bool> choose(const std::vector<ClockSample>& samples, const ClockFilter& filter, std::uint64_t& longest) {
  const std::size_t n = samples.size();
  std::vector<std::size_t> by_time(n);
  std::iota(by_time.begin(), by_time.end(), std::size_t{0});
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](std::size_t a, std::size_t b) { return samples[a].host_ns < samples[b].host_ns; });
  const std::size_t windows = std::max<std::size_t>(n / filter.window_samples, 1);
  std::vector<bool> used(n, false);
  longest = 0;
  for (std::size_t w = 0; w < windows; ++w) {
    const std::size_t first = w * n / windows, last = (w + 1) * n / windows;
    std::vector<std::uint64_t> intervals;
    for (std::size_t j = first; j < last; ++j) intervals.push_back(samples[by_time[j]].interval_ticks());
    const std::uint64_t cutoff = near_minimum_cutoff(intervals, filter);
    longest = std::max(longest, cutoff);
    for (std::size_t j = first; j < last; ++j) used[by_time[j]] = intervals[j - first] <= cutoff;
  }
  return used;
}

}  // namespace

double ClockMapping::to_host_ns(std::uint64_t ticks) const {
  return host_ref_ns + ns_per_tick * ticks_since(ticks, device_ref);
}

double ClockMapping::midpoint_host_ns(const ClockSample& s) const {
  return host_ref_ns + ns_per_tick * midpoint_ticks(s, device_ref);
}

double ClockMapping::offset_ns() const { return host_ref_ns - ns_per_tick * static_cast<double>(device_ref); }

double ClockMapping::drift_ppm(double nominal_ns_per_tick) const {
  return (ns_per_tick / nominal_ns_per_tick - 1) * 1e6;
}

// The product is nudged down by a relative 1e-12 so that, e.g., 0.07 * 100 =
// 7.000000000000001 means 7, not 8.
std::size_t keep_count(std::size_t n, double keep_fraction) {
  const double want = keep_fraction * static_cast<double>(n);
  auto k = static_cast<std::size_t>(std::ceil(want * (1 - 1e-12)));
  return std::min(std::max<std::size_t>(k, 2), n);
}

std::uint64_t near_minimum_cutoff(const std::vector<std::uint64_t>& intervals, const ClockFilter& filter) {
  if (intervals.empty()) throw Error(ErrorKind::check, "clock filter of an empty window");
  std::vector<std::uint64_t> sorted = intervals;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  // In doubles: intervals are far below 2^53 ticks. An infinite margin keeps every sample.
  const double limit = static_cast<double>(sorted.front()) * (1 + filter.margin);
  const auto within = [&](std::uint64_t v) { return std::isinf(filter.margin) || static_cast<double>(v) <= limit; };
  const auto near = static_cast<std::size_t>(std::partition_point(sorted.begin(), sorted.end(), within) -
                                             sorted.begin());
  const std::size_t floor = std::min(filter.min_kept, n);
  const std::size_t k = std::min(std::max(near, floor), keep_count(n, filter.keep_fraction));
  return sorted[k - 1];
}

ClockFit fit_clock(const std::vector<ClockSample>& samples, double keep_fraction) {
  ClockFilter filter;
  filter.keep_fraction = keep_fraction;
  return fit_clock(samples, filter);
}

ClockFit fit_clock(const std::vector<ClockSample>& samples, const ClockFilter& filter) {
  const std::size_t n = samples.size();
  if (n < 2) {
    throw Error(ErrorKind::check, "clock fit needs at least 2 samples, got " + std::to_string(n));
  }
  // Written so that NaN fails too.
  if (!(filter.keep_fraction > 0 && filter.keep_fraction <= 1)) {
    throw Error(ErrorKind::check,
                "clock fit keep_fraction " + std::to_string(filter.keep_fraction) + " outside (0, 1]");
  }
  if (!(filter.margin >= 0)) {
    throw Error(ErrorKind::check, "clock fit margin " + std::to_string(filter.margin) + " is not >= 0");
  }
  if (filter.min_kept == 0 || filter.window_samples == 0) {
    throw Error(ErrorKind::check, "clock fit needs min_kept and window_samples of at least 1");
  }
  check_samples(samples);

  ClockFit fit;
  fit.samples_total = n;
  fit.used = choose(samples, filter, fit.interval_cutoff_ticks);
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < n; ++i)
    if (fit.used[i]) kept.push_back(i);
  fit.samples_used = kept.size();

  // Center x on an integer tick and y on a kept host stamp, then on their means, so the sums only
  // ever see small numbers.
  const std::uint64_t device_ref = samples[kept.front()].device_start;
  const double host0 = samples[kept.front()].host_ns;
  double x_mean = 0, y_mean = 0;
  double x_min = midpoint_ticks(samples[kept.front()], device_ref), x_max = x_min;
  for (std::size_t i : kept) {
    const double x = midpoint_ticks(samples[i], device_ref);
    x_mean += x;
    y_mean += samples[i].host_ns - host0;
    x_min = std::min(x_min, x);
    x_max = std::max(x_max, x);
  }
  if (x_max - x_min < 1) {
    throw Error(ErrorKind::check, "clock fit: the " + std::to_string(kept.size()) +
                                      " kept samples' midpoints span less than one device tick");
  }
  const auto used_count = static_cast<double>(kept.size());
  x_mean /= used_count;
  y_mean /= used_count;
  double sxx = 0, sxy = 0;
  for (std::size_t i : kept) {
    const double dx = midpoint_ticks(samples[i], device_ref) - x_mean;
    const double dy = (samples[i].host_ns - host0) - y_mean;
    sxx += dx * dx;
    sxy += dx * dy;
  }
  fit.mapping.device_ref = device_ref;
  fit.mapping.ns_per_tick = sxy / sxx;
  // The line passes through the means; move its anchor from x_mean back to the integer tick.
  fit.mapping.host_ref_ns = host0 + (y_mean - fit.mapping.ns_per_tick * x_mean);

  fit.residuals_ns.reserve(n);
  for (const ClockSample& s : samples) fit.residuals_ns.push_back(residual(fit.mapping, s));

  std::vector<double> halves;
  halves.reserve(kept.size());
  double host_min = samples[kept.front()].host_ns, host_max = host_min;
  double squares = 0;
  for (std::size_t i : kept) {
    halves.push_back(half_interval_ns(fit.mapping, samples[i]));
    host_min = std::min(host_min, samples[i].host_ns);
    host_max = std::max(host_max, samples[i].host_ns);
    squares += fit.residuals_ns[i] * fit.residuals_ns[i];
    fit.residual_max_abs_ns = std::max(fit.residual_max_abs_ns, std::abs(fit.residuals_ns[i]));
  }
  fit.best_precision_ns = *std::min_element(halves.begin(), halves.end());
  fit.precision_ns = median_of(std::move(halves));
  fit.span_ns = host_max - host_min;
  fit.residual_rms_ns = std::sqrt(squares / used_count);
  return fit;
}

ClockSample best_sample(const std::vector<ClockSample>& samples) {
  if (samples.empty()) throw Error(ErrorKind::check, "best clock sample of no samples");
  return *std::min_element(samples.begin(), samples.end(), [](const ClockSample& a, const ClockSample& b) {
    return a.interval_ticks() < b.interval_ticks();
  });
}

ClockPrediction predict(const ClockMapping& mapping, const ClockSample& later) {
  ClockPrediction p;
  p.predicted_host_ns = mapping.midpoint_host_ns(later);
  p.measured_host_ns = later.host_ns;
  p.error_ns = residual(mapping, later);
  p.precision_ns = half_interval_ns(mapping, later);
  p.within_precision = std::abs(p.error_ns) <= p.precision_ns;
  return p;
}

}  // namespace hetprobe
