// Relating a device timer to the host clock from ping-pong sync samples (Vanecek thesis Sec 4.3.2):
// filter out samples with long intervals, fit host_ns = f(device ticks) by least squares, and check
// the fit on a later sample. Device timers can read ~1.8e18 ticks, beyond what a double holds to the
// nanosecond, so every tick difference is taken in integers before it becomes a double.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hetprobe {

// One ping-pong sync sample.
struct ClockSample {
  double host_ns = 0;              // host clock at the stamp, ns on the host timeline
  std::uint64_t device_start = 0;  // device timer ticks posted before the host stamp
  std::uint64_t device_end = 0;    // ... and after it (device_end >= device_start)
  std::uint64_t interval_ticks() const { return device_end - device_start; }
};

// host_ns = host_ref_ns + ns_per_tick * (ticks - device_ref), computed with the
// integer difference first so 1e18-tick timers keep sub-ns resolution.
struct ClockMapping {
  std::uint64_t device_ref = 0;
  double host_ref_ns = 0;
  double ns_per_tick = 1;
  double to_host_ns(std::uint64_t ticks) const;
  // Midpoint of a sample on the host timeline.
  double midpoint_host_ns(const ClockSample& s) const;
  // Thesis Eq. 4.1 form cpu = angle * gpu + offset: offset_ns = host_ref_ns - ns_per_tick * device_ref
  // (double; for display only, it has lost the precision the reference form keeps).
  double offset_ns() const;
  // (ns_per_tick / nominal_ns_per_tick - 1) * 1e6
  double drift_ppm(double nominal_ns_per_tick) const;
};

struct ClockFit {
  ClockMapping mapping;
  std::size_t samples_total = 0;
  std::size_t samples_used = 0;
  std::uint64_t interval_cutoff_ticks = 0;  // samples with a longer interval were dropped
  double precision_ns = 0;                  // median half-interval of the used samples, ns (interval * ns_per_tick / 2)
  double best_precision_ns = 0;             // smallest half-interval among used samples, ns
  double span_ns = 0;                       // host_ns span (max - min) of the used samples
  std::vector<bool> used;                   // per input sample, in input order
  // Per input sample: host_ns - mapping.midpoint_host_ns(sample) (all samples, used or not).
  std::vector<double> residuals_ns;
  double residual_rms_ns = 0;      // over used samples
  double residual_max_abs_ns = 0;  // over used samples
};

// Keeps the ceil(keep_fraction * n) samples with the shortest intervals (ties
// at the cutoff are all kept; at least 2 samples), fits host_ns against the
// device midpoint by ordinary least squares (centered on an integer reference
// tick: the first kept sample's device_start), and fills every field above.
// Throws hetprobe::Error(ErrorKind::check, ...) when fewer than 2 samples are
// given, keep_fraction is not in (0, 1], any sample has device_end <
// device_start or a non-finite host_ns, or the kept samples' midpoints do not
// span at least one tick (the slope would be undefined).
ClockFit fit_clock(const std::vector<ClockSample>& samples, double keep_fraction = 0.5);

// How many of n samples keep_fraction keeps: ceil(keep_fraction * n), at least 2, at most n (n >= 2).
std::size_t keep_count(std::size_t n, double keep_fraction);

// The tightest (shortest-interval) sample of a batch, the first one on ties;
// throws Error(check) if empty.
ClockSample best_sample(const std::vector<ClockSample>& samples);

// The fit's prediction of an independent later sample.
struct ClockPrediction {
  double predicted_host_ns = 0;   // mapping.midpoint_host_ns(later)
  double measured_host_ns = 0;    // later.host_ns
  double error_ns = 0;            // measured - predicted
  double precision_ns = 0;        // that sample's half-interval, ns
  bool within_precision = false;  // |error_ns| <= precision_ns
};
ClockPrediction predict(const ClockMapping& mapping, const ClockSample& later);

}  // namespace hetprobe
