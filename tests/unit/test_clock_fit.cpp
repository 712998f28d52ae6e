// Unit tests for the device-to-host clock fit. Synthetic samples are built from a known line
// host = H0 + ns_per_tick * (midpoint - D0), with D0 near 1.8e18 so that any tick value turned
// into a double before the reference is subtracted would be off by hundreds of ns.
#include "bench/protocols/clock_fit.hpp"

#include "base/errors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <vector>

namespace hetprobe {
namespace {

constexpr std::uint64_t kHugeTick = 1'800'000'000'000'000'123ULL;  // ~%globaltimer, odd on purpose

ClockSample make_sample(double host_ns, std::uint64_t start, std::uint64_t interval) {
  ClockSample s;
  s.host_ns = host_ns;
  s.device_start = start;
  s.device_end = start + interval;
  return s;
}

// A sample whose host stamp lies exactly on the line at the device midpoint, plus `displace_ns`.
ClockSample on_line(double h0, std::uint64_t d0, double ns_per_tick, std::uint64_t start, std::uint64_t interval,
                    double displace_ns = 0) {
  const double mid = static_cast<double>(start - d0) + 0.5 * static_cast<double>(interval);
  return make_sample(h0 + ns_per_tick * mid + displace_ns, start, interval);
}

// Every sample kept: the least-squares fit alone.
ClockFilter keep_all() {
  ClockFilter f;
  f.margin = std::numeric_limits<double>::infinity();
  f.keep_fraction = 1;
  f.window_samples = std::numeric_limits<std::size_t>::max();  // one window
  return f;
}

// The rule before the near-minimum filter: the shortest keep_fraction of all samples.
ClockFilter shortest_fraction(double keep_fraction) {
  ClockFilter f = keep_all();
  f.keep_fraction = keep_fraction;
  return f;
}

void expect_check_error(const std::function<void()>& call) {
  try {
    call();
    ADD_FAILURE() << "no hetprobe::Error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::check) << e.what();
  }
}

TEST(ClockMapping, IntegerDifferenceFirst) {
  const ClockMapping m{kHugeTick, 1e11, 10.0};
  EXPECT_EQ(m.to_host_ns(kHugeTick), 1e11);
  EXPECT_EQ(m.to_host_ns(kHugeTick + 7), 1e11 + 70);
  EXPECT_EQ(m.to_host_ns(kHugeTick - 3), 1e11 - 30);  // before the reference
  EXPECT_EQ(m.midpoint_host_ns(make_sample(0, kHugeTick + 4, 3)), 1e11 + 55);
  EXPECT_NEAR(m.offset_ns(), 1e11 - 10.0 * 1.8e18, 1e-12 * 1.8e19);
  const ClockMapping fast{0, 0, 10.00025};
  EXPECT_NEAR(fast.drift_ppm(10.0), 25.0, 1e-9);
  EXPECT_NEAR(fast.drift_ppm(10.00025), 0.0, 1e-9);
}

TEST(FitClock, ExactLineHugeTicksAmdRate) {
  // AMD s_memrealtime: 100 MHz, 10 ns per tick.
  const double h0 = 1e11;
  std::vector<ClockSample> samples;
  for (std::uint64_t i = 0; i < 100; ++i) {
    samples.push_back(on_line(h0, kHugeTick, 10.0, kHugeTick + i * 100'003 + i % 7, 20 + 2 * (i % 5)));
  }
  const ClockFit fit = fit_clock(samples, keep_all());
  EXPECT_EQ(fit.samples_total, 100u);
  EXPECT_EQ(fit.samples_used, 100u);
  EXPECT_EQ(fit.interval_cutoff_ticks, 28u);
  EXPECT_EQ(fit.mapping.device_ref, kHugeTick);
  EXPECT_NEAR(fit.mapping.ns_per_tick, 10.0, 1e-12);
  EXPECT_NEAR(fit.mapping.drift_ppm(10.0), 0.0, 1e-6);
  EXPECT_NEAR(fit.mapping.host_ref_ns, h0, 1e-3);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    EXPECT_NEAR(fit.mapping.midpoint_host_ns(samples[i]), samples[i].host_ns, 1e-3) << i;
    EXPECT_NEAR(fit.residuals_ns[i], 0.0, 1e-3) << i;
  }
  EXPECT_NEAR(fit.mapping.to_host_ns(kHugeTick + 5'000'000), h0 + 5e7, 1e-3);
  EXPECT_NEAR(fit.mapping.to_host_ns(kHugeTick - 5'000'000), h0 - 5e7, 1e-3);
  EXPECT_LT(fit.residual_rms_ns, 1e-3);
  EXPECT_LT(fit.residual_max_abs_ns, 1e-3);
  // Intervals 20..28 ticks in equal numbers: half-intervals 100..140 ns, median 120.
  EXPECT_NEAR(fit.precision_ns, 120.0, 1e-6);
  EXPECT_NEAR(fit.best_precision_ns, 100.0, 1e-6);
  EXPECT_NEAR(fit.span_ns, samples.back().host_ns - samples.front().host_ns, 1e-6);
}

struct NoisyRun {
  std::vector<ClockSample> samples;
  std::vector<bool> outlier;
};

// 2000 samples 1 ms apart (2 s) on a line drifting +25 ppm; the host stamp falls anywhere in the
// interval. Every 20th sample is an outlier: a 50 us interval and a stamp up to 50 us off.
NoisyRun noisy_run(double ns_per_tick, double h0) {
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<std::uint64_t> start_jitter(0, 999);
  std::uniform_int_distribution<std::uint64_t> interval(600, 900);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  NoisyRun run;
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const std::uint64_t start = kHugeTick + i * 1'000'000 + start_jitter(rng);
    const bool outlier = i % 20 == 7;
    const std::uint64_t ticks = outlier ? 50'000 : interval(rng);
    const double reach = outlier ? static_cast<double>(ticks) : 0.5 * static_cast<double>(ticks);
    run.samples.push_back(on_line(h0, kHugeTick, ns_per_tick, start, ticks, unit(rng) * reach * ns_per_tick));
    run.outlier.push_back(outlier);
  }
  return run;
}

TEST(FitClock, NoisyDriftRecoveredOutliersDropped) {
  const double ns_per_tick = 1 + 25e-6;
  const double h0 = 3.6e12;  // an hour of CLOCK_MONOTONIC
  const NoisyRun run = noisy_run(ns_per_tick, h0);
  ClockFilter halves;
  halves.window_samples = 1000;
  const ClockFit fit = fit_clock(run.samples, halves);

  EXPECT_NEAR(fit.mapping.drift_ppm(1.0), 25.0, 1.0);
  ASSERT_EQ(fit.used.size(), run.samples.size());
  ASSERT_EQ(fit.residuals_ns.size(), run.samples.size());
  // Both halves of the run reach the shortest interval, 600 ticks: each keeps up to 630 (600 x 1.05).
  EXPECT_EQ(fit.interval_cutoff_ticks, 630u);
  std::size_t used = 0;
  for (std::size_t i = 0; i < run.samples.size(); ++i) {
    if (run.outlier[i]) {
      EXPECT_FALSE(fit.used[i]) << i;
    }
    EXPECT_EQ(fit.used[i], run.samples[i].interval_ticks() <= 630) << i;
    used += fit.used[i] ? 1 : 0;
  }
  EXPECT_EQ(fit.samples_used, used);
  // Intervals 600..900 in equal numbers: 31 of the 301 values, ~10% of the 1900 regular samples.
  EXPECT_GE(fit.samples_used, 150u);
  EXPECT_LE(fit.samples_used, 250u);

  // Kept half-intervals are 300..315 ns; a stamp uniform across them has rms ~h/sqrt(3) ~ 178 ns.
  EXPECT_GT(fit.residual_rms_ns, 150.0);
  EXPECT_LT(fit.residual_rms_ns, 210.0);
  EXPECT_LT(fit.residual_max_abs_ns, 315.0 * ns_per_tick + 1);
  EXPECT_NEAR(fit.best_precision_ns, 300.0 * ns_per_tick, 1e-3);
  EXPECT_GE(fit.precision_ns, fit.best_precision_ns);
  EXPECT_LE(fit.precision_ns, 1.05 * fit.best_precision_ns);
  EXPECT_GT(fit.span_ns, 1.9e9);
  EXPECT_LT(fit.span_ns, 2.0e9 * ns_per_tick);

  // An independent sample half a second after the run, on the true line.
  const ClockSample later = on_line(h0, kHugeTick, ns_per_tick, kHugeTick + 2'500'000'000ULL, 700);
  const ClockPrediction p = predict(fit.mapping, later);
  EXPECT_TRUE(p.within_precision) << p.error_ns;
  EXPECT_LT(std::abs(p.error_ns), 100.0);
}

TEST(FitClock, KeepingOutliersHurts) {
  const NoisyRun run = noisy_run(1 + 25e-6, 3.6e12);
  const ClockFit all = fit_clock(run.samples, keep_all());
  EXPECT_EQ(all.samples_used, run.samples.size());
  EXPECT_EQ(all.interval_cutoff_ticks, 50'000u);
  // 5% of stamps up to 50 us off: rms over all samples is several us.
  EXPECT_GT(all.residual_rms_ns, 1000.0);
  EXPECT_GT(all.residual_max_abs_ns, 10'000.0);
}

// keep_fraction alone (no margin, one window): the cap the near-minimum filter keeps.
TEST(FitClock, KeepFractionCountsAndTies) {
  const std::vector<std::uint64_t> distinct{5, 1, 9, 3, 7, 2, 10, 4, 8, 6};
  std::vector<ClockSample> samples;
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    samples.push_back(on_line(1e9, 1000, 1.0, 1000 + 1000 * i, distinct[i]));
  }
  struct Case {
    double keep;
    std::size_t used;
    std::uint64_t cutoff;
  };
  for (const Case& c : {Case{0.3, 3, 3}, Case{0.35, 4, 4}, Case{0.01, 2, 2}, Case{0.5, 5, 5}, Case{1.0, 10, 10}}) {
    const ClockFit fit = fit_clock(samples, shortest_fraction(c.keep));
    EXPECT_EQ(fit.samples_total, 10u) << c.keep;
    EXPECT_EQ(fit.samples_used, c.used) << c.keep;
    EXPECT_EQ(fit.interval_cutoff_ticks, c.cutoff) << c.keep;
    ASSERT_EQ(fit.used.size(), samples.size());
    EXPECT_EQ(fit.residuals_ns.size(), samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) EXPECT_EQ(fit.used[i], distinct[i] <= c.cutoff) << c.keep;
  }

  // Three samples share the cutoff interval 3 with the third-shortest: all are kept.
  const std::vector<std::uint64_t> tied{4, 1, 3, 3, 2, 3, 9, 3, 8, 7};
  samples.clear();
  for (std::size_t i = 0; i < tied.size(); ++i) {
    // The unkept samples' stamps are 1 us off: it must show in their residuals, not in the fit.
    samples.push_back(on_line(1e9, 1000, 1.0, 1000 + 1000 * i, tied[i], tied[i] > 3 ? 1000.0 : 0.0));
  }
  const ClockFit fit = fit_clock(samples, shortest_fraction(0.3));
  EXPECT_EQ(fit.interval_cutoff_ticks, 3u);
  EXPECT_EQ(fit.samples_used, 6u);
  EXPECT_EQ(fit.used, (std::vector<bool>{false, true, true, true, true, true, false, true, false, false}));
  EXPECT_EQ(fit.mapping.device_ref, 2000u);  // the first kept sample's device_start
  EXPECT_NEAR(fit.mapping.ns_per_tick, 1.0, 1e-12);
  ASSERT_EQ(fit.residuals_ns.size(), samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    EXPECT_NEAR(fit.residuals_ns[i], fit.used[i] ? 0.0 : 1000.0, 1e-6) << i;
    EXPECT_NEAR(fit.residuals_ns[i], samples[i].host_ns - fit.mapping.midpoint_host_ns(samples[i]), 1e-6) << i;
  }
  EXPECT_LT(fit.residual_max_abs_ns, 1e-6);  // over the used samples only
  // Used half-intervals 0.5, 1, 1.5 x4: median 1.5.
  EXPECT_NEAR(fit.precision_ns, 1.5, 1e-9);
  EXPECT_NEAR(fit.best_precision_ns, 0.5, 1e-9);
}

TEST(FitClock, KeepCountIgnoresFloatingPointExcess) {
  // 0.07 * 100 evaluates to 7.000000000000001; the count is still 7.
  ASSERT_GT(0.07 * 100, 7.0);
  std::vector<ClockSample> samples;
  for (std::uint64_t i = 0; i < 100; ++i) samples.push_back(on_line(0, 0, 1.0, 1000 * i, 1 + i));
  const ClockFit fit = fit_clock(samples, shortest_fraction(0.07));
  EXPECT_EQ(fit.samples_used, 7u);
  EXPECT_EQ(fit.interval_cutoff_ticks, 7u);
}

TEST(NearMinimumCutoff, MarginFloorCapTies) {
  const std::vector<std::uint64_t> w{1000, 1020, 1049, 1050, 1051, 2000, 3000, 4000, 5000, 6000};
  ClockFilter f;                                // margin 5%, at least 4, at most half
  EXPECT_EQ(near_minimum_cutoff(w, f), 1050u);  // 1000 x 1.05: four samples
  f.margin = 0.01;
  EXPECT_EQ(near_minimum_cutoff(w, f), 1050u);  // only 1000 within 1%: the floor of 4
  f.min_kept = 2;
  EXPECT_EQ(near_minimum_cutoff(w, f), 1020u);
  f = ClockFilter{};
  f.keep_fraction = 0.2;
  EXPECT_EQ(near_minimum_cutoff(w, f), 1020u);  // the cap (2 of 10) wins over the floor
  f = ClockFilter{};
  f.margin = 0.2;
  EXPECT_EQ(near_minimum_cutoff(w, f), 1051u);  // five within 20%, the cap of half is 5
  f.margin = std::numeric_limits<double>::infinity();
  f.keep_fraction = 1;
  EXPECT_EQ(near_minimum_cutoff(w, f), 6000u);
  f = ClockFilter{};
  f.min_kept = 2;
  EXPECT_EQ(near_minimum_cutoff({1100, 1000, 5000, 1100, 1100}, f), 1100u);  // the floor's ties: all 1100s
  EXPECT_EQ(near_minimum_cutoff({7}, ClockFilter{}), 7u);
  EXPECT_EQ(near_minimum_cutoff({1, 0, 5, 0}, ClockFilter{}), 0u);  // a zero minimum keeps its equals
}

// Two launches on one machine: the same path (the same minimum round trip, give or take a timer
// step) with tails of different shapes (what the host thread and the link were doing). 2 batches of
// 200 ping-pongs 10 s apart; the stamps anywhere inside their intervals.
std::vector<ClockSample> launch(std::uint64_t min_ticks, std::uint64_t tail_from, std::uint64_t tail_to,
                                unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint64_t> tail(tail_from, tail_to);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<ClockSample> out;
  for (std::uint64_t batch = 0; batch < 2; ++batch) {
    // Five near the minimum (32-tick timer steps), at places spread over the batch.
    const std::vector<std::uint64_t> near{min_ticks, min_ticks + 32, min_ticks + 32, min_ticks + 64, min_ticks + 64};
    for (std::uint64_t i = 0; i < 200; ++i) {
      const std::uint64_t ticks = i % 40 == 3 ? near[i / 40] : tail(rng);
      const std::uint64_t start = kHugeTick + batch * 10'000'000'000ULL + i * 5000;
      out.push_back(on_line(7e11, kHugeTick, 1.0, start, ticks, unit(rng) * 0.5 * static_cast<double>(ticks)));
    }
  }
  return out;
}

TEST(FitClock, PrecisionIsTheNearMinimumHalfInterval) {
  const auto quiet = launch(1700, 1800, 2100, 1);
  const auto busy = launch(1710, 2100, 4700, 2);  // a 10-tick longer minimum, a tail 8x as wide
  ClockFilter batches;                            // as the clock probe: a window per batch
  batches.window_samples = 200;
  const ClockFit a = fit_clock(quiet, batches), b = fit_clock(busy, batches);
  // Each batch keeps its five within 5% of its minimum (1700 x 1.05 = 1785).
  EXPECT_EQ(a.samples_used, 10u);
  EXPECT_EQ(a.interval_cutoff_ticks, 1764u);
  EXPECT_EQ(b.samples_used, 10u);
  // Precision: the median half-interval of those, (min + 32) / 2, within 1.05x of the best.
  EXPECT_NEAR(a.precision_ns, 866.0, 1e-3);
  EXPECT_NEAR(a.best_precision_ns, 850.0, 1e-3);
  EXPECT_NEAR(b.precision_ns, 871.0, 1e-3);
  EXPECT_LE(a.precision_ns, 1.05 * a.best_precision_ns);
  // Launch to launch it moves as the minimum does (0.6%), not as the tail does.
  EXPECT_LT(std::abs(b.precision_ns / a.precision_ns - 1), 0.01);
  // The shortest half of each batch, as the fit kept before, followed the tail.
  ClockFilter half = shortest_fraction(0.5);
  half.window_samples = 200;
  EXPECT_GT(fit_clock(busy, half).precision_ns / fit_clock(quiet, half).precision_ns, 1.2);
  EXPECT_NEAR(a.mapping.ns_per_tick, 1.0, 1e-6);
  EXPECT_NEAR(b.mapping.ns_per_tick, 1.0, 1e-6);
}

// The interference and halo probes' fits: 16 ping-pongs before a measurement and 16 after.
TEST(FitClock, LongRoundTripsDoNotMoveTheFit) {
  const double ns_per_tick = 1 + 3e-6, h0 = 2e12;
  std::vector<ClockSample> near, all;
  for (std::uint64_t batch = 0; batch < 2; ++batch) {
    for (std::uint64_t i = 0; i < 16; ++i) {
      const std::uint64_t start = kHugeTick + batch * 500'000'000 + i * 20'000;
      if (i % 3 == 0) {  // six of each batch within 5% of the minimum, their stamps a quarter of it off
        const ClockSample s = on_line(h0, kHugeTick, ns_per_tick, start, 1000 + 2 * i, (i % 2 ? 250.0 : -250.0));
        near.push_back(s);
        all.push_back(s);
      } else {  // a held-up host thread: a long interval and a stamp far off, all one way
        all.push_back(on_line(h0, kHugeTick, ns_per_tick, start, 5000 + 4000 * i, 20'000.0 + 1000.0 * i));
      }
    }
  }
  // The same line as fitting the near-minimum samples alone.
  const ClockFit fit = fit_clock(all, 0.5), clean = fit_clock(near, keep_all());
  EXPECT_EQ(fit.samples_used, near.size());
  EXPECT_EQ(clean.samples_used, near.size());
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(fit.used[i], all[i].interval_ticks() < 5000) << i;
  EXPECT_EQ(fit.mapping.device_ref, clean.mapping.device_ref);
  EXPECT_DOUBLE_EQ(fit.mapping.ns_per_tick, clean.mapping.ns_per_tick);
  EXPECT_DOUBLE_EQ(fit.mapping.host_ref_ns, clean.mapping.host_ref_ns);
  EXPECT_DOUBLE_EQ(fit.precision_ns, clean.precision_ns);
  EXPECT_NEAR(fit.mapping.drift_ppm(1.0), 3.0, 1.0);
  EXPECT_LT(fit.residual_max_abs_ns, 300.0);
  // Fitted on everything, the outliers pull the line by microseconds.
  EXPECT_GT(std::abs(fit_clock(all, keep_all()).residual_rms_ns), 5000.0);
}

TEST(FitClock, EveryWindowStaysInTheFit) {
  // Before a measurement the path is quiet (shortest 1000 ticks); after it, slower (shortest 1400:
  // beyond 5% of 1000, so one cutoff for all samples would drop every later sample). Only one later
  // sample is near its own minimum; the floor keeps four.
  std::vector<ClockSample> samples;
  for (std::uint64_t i = 0; i < 16; ++i)
    samples.push_back(on_line(5e9, kHugeTick, 1.0, kHugeTick + i * 3000, 1000 + 3 * i));
  for (std::uint64_t i = 0; i < 16; ++i)
    samples.push_back(on_line(5e9, kHugeTick, 1.0, kHugeTick + 1'000'000'000 + i * 3000,
                              i == 9 ? 1400 : 1600 + 100 * i));
  const ClockFit fit = fit_clock(samples, 0.5);
  std::size_t before = 0, after = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) (i < 16 ? before : after) += fit.used[i] ? 1 : 0;
  EXPECT_EQ(before, 8u);  // 1000..1045 within 1050, capped at half of 16
  EXPECT_EQ(after, 4u);   // 1400, 1600, 1700, 1800
  EXPECT_EQ(fit.interval_cutoff_ticks, 1800u);
  EXPECT_GT(fit.span_ns, 1e9 - 1e5);  // both ends
  EXPECT_NEAR(fit.mapping.ns_per_tick, 1.0, 1e-9);
  // The same samples in another input order: the windows follow the host stamps, not the order.
  std::vector<ClockSample> shuffled = samples;
  std::vector<std::size_t> order(samples.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = (i * 7) % order.size();  // 7 is prime to 32
  for (std::size_t i = 0; i < order.size(); ++i) shuffled[i] = samples[order[i]];
  const ClockFit again = fit_clock(shuffled, 0.5);
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(again.used[i], fit.used[order[i]]) << i;
}

// A window per batch: the clock probe's (batches of 50 here, window_samples 50), and the default's
// (the interference probe's rounds: 16 syncs before and 16 after each visit, appended in time order).
// Each batch's cutoff, as the clock probe records it, is the one the fit applies.
TEST(FitClock, OneWindowPerBatch) {
  for (const std::uint64_t size : {50, 16}) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::uint64_t> interval(900, 2000);
    std::vector<ClockSample> samples;
    std::vector<std::uint64_t> cutoffs;
    ClockFilter f;
    if (size != 16) f.window_samples = size;
    for (std::uint64_t b = 0; b < 6; ++b) {
      std::vector<std::uint64_t> batch;
      for (std::uint64_t i = 0; i < size; ++i) {
        batch.push_back(interval(rng) + 100 * b);
        samples.push_back(on_line(1e10, kHugeTick, 1.0, kHugeTick + b * 2'000'000'000 + i * 4000, batch.back()));
      }
      cutoffs.push_back(near_minimum_cutoff(batch, f));
    }
    const ClockFit fit = fit_clock(samples, f);
    for (std::size_t i = 0; i < samples.size(); ++i)
      EXPECT_EQ(fit.used[i], samples[i].interval_ticks() <= cutoffs[i / size]) << size << " " << i;
    EXPECT_EQ(fit.interval_cutoff_ticks, *std::max_element(cutoffs.begin(), cutoffs.end())) << size;
    EXPECT_GE(fit.samples_used, 6u * 4u) << size;
  }
}

TEST(Predict, WithinPrecisionAndErrorSign) {
  const ClockMapping m{kHugeTick, 5e9, 1.0};
  // Interval 200 ticks: precision 100 ns.
  const std::uint64_t start = kHugeTick + 3'000'000;
  const ClockPrediction on = predict(m, on_line(5e9, kHugeTick, 1.0, start, 200));
  EXPECT_EQ(on.predicted_host_ns, 5e9 + 3'000'100);
  EXPECT_EQ(on.measured_host_ns, 5e9 + 3'000'100);
  EXPECT_EQ(on.error_ns, 0.0);
  EXPECT_EQ(on.precision_ns, 100.0);
  EXPECT_TRUE(on.within_precision);

  const ClockSample late = on_line(5e9, kHugeTick, 1.0, start, 200, 1000.0);  // 10x the half-interval
  const ClockPrediction p_late = predict(m, late);
  EXPECT_EQ(p_late.measured_host_ns, late.host_ns);
  EXPECT_EQ(p_late.predicted_host_ns, m.midpoint_host_ns(late));
  EXPECT_NEAR(p_late.error_ns, 1000.0, 1e-6);  // measured - predicted
  EXPECT_FALSE(p_late.within_precision);

  const ClockPrediction p_early = predict(m, on_line(5e9, kHugeTick, 1.0, start, 200, -1000.0));
  EXPECT_NEAR(p_early.error_ns, -1000.0, 1e-6);
  EXPECT_FALSE(p_early.within_precision);

  // The bound is inclusive.
  EXPECT_TRUE(predict(m, on_line(5e9, kHugeTick, 1.0, start, 200, 100.0)).within_precision);
  EXPECT_FALSE(predict(m, on_line(5e9, kHugeTick, 1.0, start, 200, -100.5)).within_precision);

  // Precision scales with the mapping's rate.
  const ClockMapping amd{kHugeTick, 5e9, 10.0};
  EXPECT_EQ(predict(amd, on_line(5e9, kHugeTick, 10.0, start, 200)).precision_ns, 1000.0);
}

TEST(Predict, LaterSampleOfFittedLine) {
  std::vector<ClockSample> samples;
  for (std::uint64_t i = 0; i < 50; ++i) {
    samples.push_back(on_line(2e9, kHugeTick, 10.0, kHugeTick + 10'000 * i, 30 + i % 3));
  }
  const ClockFit fit = fit_clock(samples);
  const ClockSample later = on_line(2e9, kHugeTick, 10.0, kHugeTick + 100'000'000, 40);
  const ClockPrediction on = predict(fit.mapping, later);
  EXPECT_NEAR(on.error_ns, 0.0, 1e-3);
  EXPECT_NEAR(on.precision_ns, 200.0, 1e-6);
  EXPECT_TRUE(on.within_precision);
  const ClockPrediction off = predict(fit.mapping, on_line(2e9, kHugeTick, 10.0, kHugeTick + 100'000'000, 40, -2000));
  EXPECT_NEAR(off.error_ns, -2000.0, 1e-3);
  EXPECT_FALSE(off.within_precision);
}

TEST(FitClock, Errors) {
  const std::vector<ClockSample> two{make_sample(0, 0, 10), make_sample(100, 100, 10)};
  EXPECT_NO_THROW(fit_clock(two, 1.0));

  expect_check_error([] { fit_clock({}); });
  expect_check_error([] { fit_clock({make_sample(0, 0, 10)}); });
  expect_check_error([&] { fit_clock(two, 0.0); });
  expect_check_error([&] { fit_clock(two, 1.5); });
  expect_check_error([&] { fit_clock(two, -0.5); });
  expect_check_error([&] { fit_clock(two, std::numeric_limits<double>::quiet_NaN()); });

  std::vector<ClockSample> backwards = two;
  backwards.push_back(make_sample(200, 200, 10));
  backwards[2].device_end = 199;
  expect_check_error([&] { fit_clock(backwards, 1.0); });

  std::vector<ClockSample> nan_host = two;
  nan_host[1].host_ns = std::numeric_limits<double>::quiet_NaN();
  expect_check_error([&] { fit_clock(nan_host, 1.0); });

  // All midpoints equal.
  const std::vector<ClockSample> same(3, make_sample(5, 100, 10));
  expect_check_error([&] { fit_clock(same, 1.0); });
  // Midpoints 100 and 100.5: less than a tick apart.
  expect_check_error([&] { fit_clock({make_sample(0, 100, 0), make_sample(1, 100, 1)}, 1.0); });
  EXPECT_NO_THROW(fit_clock({make_sample(0, 100, 0), make_sample(1, 100, 2)}, 1.0));
  // Only the kept samples count: the one sample that would spread the midpoints is dropped.
  const std::vector<ClockSample> kept_same{make_sample(5, 100, 10), make_sample(6, 100, 10), make_sample(900, 0, 1000)};
  EXPECT_NO_THROW(fit_clock(kept_same, shortest_fraction(1.0)));
  expect_check_error([&] { fit_clock(kept_same, shortest_fraction(0.5)); });
  // The filter itself.
  ClockFilter bad;
  bad.margin = -0.01;
  expect_check_error([&] { fit_clock(two, bad); });
  bad.margin = std::numeric_limits<double>::quiet_NaN();
  expect_check_error([&] { fit_clock(two, bad); });
  bad = ClockFilter{};
  bad.window_samples = 0;
  expect_check_error([&] { fit_clock(two, bad); });
  bad = ClockFilter{};
  bad.min_kept = 0;
  expect_check_error([&] { fit_clock(two, bad); });
  expect_check_error([] { near_minimum_cutoff({}, ClockFilter{}); });
}

TEST(BestSample, ShortestIntervalFirstOnTies) {
  const std::vector<ClockSample> samples{make_sample(1, kHugeTick, 90), make_sample(2, kHugeTick + 1000, 40),
                                         make_sample(3, kHugeTick + 2000, 70), make_sample(4, kHugeTick + 3000, 40)};
  const ClockSample best = best_sample(samples);
  EXPECT_EQ(best.host_ns, 2.0);
  EXPECT_EQ(best.device_start, kHugeTick + 1000);
  EXPECT_EQ(best.interval_ticks(), 40u);
  expect_check_error([] { best_sample({}); });
}

}  // namespace
}  // namespace hetprobe
