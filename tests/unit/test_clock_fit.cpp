// Unit tests for the device-to-host clock fit. Synthetic samples are built from a known line
// host = H0 + ns_per_tick * (midpoint - D0), with D0 near 1.8e18 so that any tick value turned
// into a double before the reference is subtracted would be off by hundreds of ns.
#include "bench/clock/clock_fit.hpp"

#include "bench/core/errors.hpp"

#include <gtest/gtest.h>

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
  const ClockFit fit = fit_clock(samples, 1.0);
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
  const ClockFit fit = fit_clock(run.samples, 0.5);

  EXPECT_NEAR(fit.mapping.drift_ppm(1.0), 25.0, 1.0);
  ASSERT_EQ(fit.used.size(), run.samples.size());
  ASSERT_EQ(fit.residuals_ns.size(), run.samples.size());
  std::size_t used = 0;
  for (std::size_t i = 0; i < run.samples.size(); ++i) {
    if (run.outlier[i]) {
      EXPECT_FALSE(fit.used[i]) << i;
    }
    EXPECT_EQ(fit.used[i], run.samples[i].interval_ticks() <= fit.interval_cutoff_ticks) << i;
    used += fit.used[i] ? 1 : 0;
  }
  EXPECT_EQ(fit.samples_used, used);
  // Half of 2000, plus the ties at the cutoff (about 6 samples share each interval value).
  EXPECT_GE(fit.samples_used, 1000u);
  EXPECT_LE(fit.samples_used, 1030u);
  EXPECT_GT(fit.interval_cutoff_ticks, 700u);
  EXPECT_LT(fit.interval_cutoff_ticks, 800u);

  // Kept half-intervals are ~300..375 ns; a stamp uniform across them has rms ~h/sqrt(3) ~ 195 ns.
  EXPECT_GT(fit.residual_rms_ns, 150.0);
  EXPECT_LT(fit.residual_rms_ns, 250.0);
  EXPECT_LT(fit.residual_max_abs_ns, 0.5 * static_cast<double>(fit.interval_cutoff_ticks) * ns_per_tick + 20);
  EXPECT_GT(fit.precision_ns, 300.0);
  EXPECT_LT(fit.precision_ns, 0.5 * static_cast<double>(fit.interval_cutoff_ticks) * ns_per_tick);
  EXPECT_NEAR(fit.best_precision_ns, 300.0 * ns_per_tick, 1e-3);
  EXPECT_GT(fit.span_ns, 1.99e9);
  EXPECT_LT(fit.span_ns, 2.0e9 * ns_per_tick);

  // An independent sample half a second after the run, on the true line.
  const ClockSample later = on_line(h0, kHugeTick, ns_per_tick, kHugeTick + 2'500'000'000ULL, 700);
  const ClockPrediction p = predict(fit.mapping, later);
  EXPECT_TRUE(p.within_precision) << p.error_ns;
  EXPECT_LT(std::abs(p.error_ns), 100.0);
}

TEST(FitClock, KeepingOutliersHurts) {
  const NoisyRun run = noisy_run(1 + 25e-6, 3.6e12);
  const ClockFit all = fit_clock(run.samples, 1.0);
  EXPECT_EQ(all.samples_used, run.samples.size());
  EXPECT_EQ(all.interval_cutoff_ticks, 50'000u);
  // 5% of stamps up to 50 us off: rms over all samples is several us.
  EXPECT_GT(all.residual_rms_ns, 1000.0);
  EXPECT_GT(all.residual_max_abs_ns, 10'000.0);
}

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
    const ClockFit fit = fit_clock(samples, c.keep);
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
  const ClockFit fit = fit_clock(samples, 0.3);
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
  const ClockFit fit = fit_clock(samples, 0.07);
  EXPECT_EQ(fit.samples_used, 7u);
  EXPECT_EQ(fit.interval_cutoff_ticks, 7u);
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
  EXPECT_NO_THROW(fit_clock(kept_same, 1.0));
  expect_check_error([&] { fit_clock(kept_same, 0.5); });
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
