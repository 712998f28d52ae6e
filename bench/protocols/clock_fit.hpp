// Relating a device timer to the host clock from ping-pong sync samples (Vanecek thesis Sec 4.3.2):
// keep the samples whose round trips lie nearest the minimum (NTP's clock filter), fit host_ns =
// f(device ticks) by least squares, and check the fit on a later sample. Device timers can read
// ~1.8e18 ticks, beyond what a double holds to the nanosecond, so every tick difference is taken in
// integers before it becomes a double.
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

// Which samples a fit uses, chosen as NTP's clock filter chooses (RFC 5905 Sec. 10): a round trip
// is lengthened, never shortened, by whatever delays it (a descheduled host thread, a busy link,
// a poll that just missed), and the host stamp may lie anywhere inside it, so the round trips
// nearest the minimum are the ones whose midpoint is known best. Their length is set by the
// hardware path, so it is the same from launch to launch, unlike the shape of the tail.
//
// The samples, in host-time order, are cut into windows of `window_samples` (n / window_samples
// runs of equal count, at least one), so every part of the span stays in the fit even when one part
// was noisier: the syncs come in batches of that many (16 before and 16 after a measurement in the
// interference, load and halo probes; the clock probe passes its batch size), and each batch is a
// window. Of each window, the samples with
//   interval <= (1 + margin) x the window's shortest interval
// are kept, but at least the min_kept shortest (if the window has that many) and at most the
// keep_count(window size, keep_fraction) shortest; every sample tied with the longest kept interval
// is kept too.
struct ClockFilter {
  // 5%: on an H100 a flag round trip takes ~1.7 us on %globaltimer, which moves in steps of 32 ns,
  // so 5% (~85 ns) holds the minimum and the two or three steps above it: a handful of each batch
  // of 200. The precision (median kept half-interval) is then within ~1.05x of the best sample's.
  double margin = 0.05;
  // 4: a window's intercept rests on at least four midpoints, so no single sample whose host stamp
  // sat at one end of its interval sets it; with two windows, eight points for two parameters. In
  // a window of 16 the fourth shortest is its first quartile.
  std::size_t min_kept = 4;
  // The cap the fit kept before this filter (the shortest half); it wins over min_kept.
  double keep_fraction = 0.5;
  std::size_t window_samples = 16;
};

struct ClockFit {
  ClockMapping mapping;
  std::size_t samples_total = 0;
  std::size_t samples_used = 0;
  std::uint64_t interval_cutoff_ticks = 0;  // the longest kept interval (each window has its own cutoff)
  double precision_ns = 0;                  // median half-interval of the used samples, ns (interval * ns_per_tick / 2)
  double best_precision_ns = 0;             // smallest half-interval among used samples, ns
  double span_ns = 0;                       // host_ns span (max - min) of the used samples
  std::vector<bool> used;                   // per input sample, in input order
  // Per input sample: host_ns - mapping.midpoint_host_ns(sample) (all samples, used or not).
  std::vector<double> residuals_ns;
  double residual_rms_ns = 0;      // over used samples
  double residual_max_abs_ns = 0;  // over used samples
};

// Keeps the samples `filter` chooses, fits host_ns against the device midpoint by ordinary least
// squares (centered on an integer reference tick: the first kept sample's device_start), and fills
// every field above. Throws hetprobe::Error(ErrorKind::check, ...) when fewer than 2 samples are
// given, the filter is invalid (keep_fraction not in (0, 1], margin negative or NaN, min_kept or
// window_samples 0), any sample has device_end < device_start or a non-finite host_ns, or the kept
// samples' midpoints do not span at least one tick (the slope would be undefined).
ClockFit fit_clock(const std::vector<ClockSample>& samples, const ClockFilter& filter = {});
// The default filter with its cap at keep_fraction (the interference and halo probes' syncs).
ClockFit fit_clock(const std::vector<ClockSample>& samples, double keep_fraction);

// How many of n samples keep_fraction keeps: ceil(keep_fraction * n), at least 2, at most n (n >= 1).
std::size_t keep_count(std::size_t n, double keep_fraction);

// The cutoff of one window, given its samples' intervals (not empty): the window's samples with
// interval <= the result are the ones `filter` keeps (its `window_samples` is not used).
std::uint64_t near_minimum_cutoff(const std::vector<std::uint64_t>& intervals, const ClockFilter& filter);

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
