#include "bench/protocols/clock_sync.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/stats.hpp"
#include "bench/core/noise.hpp"
#include "probes/device/host_spin.hpp"
#include "probes/signal/host_signal_ops.hpp"

namespace hetprobe {

Json ClockSyncConfig::to_json() const {
  return Json{{"samples_per_batch", samples_per_batch},
              {"batches", batches},
              {"span_s", span_s},
              {"check_after_s", check_after_s},
              {"keep_fraction", keep_fraction},
              {"near_min_margin", filter().margin},
              {"min_kept_per_batch", filter().min_kept},
              {"order", to_string(order)},
              {"timeout_s", timeout_s},
              {"flag_pages", flag_pages}};
}

ClockFilter ClockSyncConfig::filter() const {
  ClockFilter f;
  f.keep_fraction = keep_fraction;
  f.window_samples = static_cast<std::size_t>(std::max(samples_per_batch, 1));
  return f;
}

double reference_ns_per_tick(const DeviceInfo& info, bool& nominal) {
  nominal = info.timer_counts_ns;
  return nominal ? 1.0 : 1e9 / info.timer_hz;
}

namespace {

template <MemoryOrder O>
std::vector<ClockSample> host_side(const HostClock& clock, unsigned long long* go, unsigned long long* slot,
                                   std::uint64_t first, int n, double timeout) {
  HostSignalOps h;
  std::vector<ClockSample> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    ClockSample& s = out[static_cast<std::size_t>(i)];
    store_flag<O>(h, go, first + static_cast<std::uint64_t>(i));
    spin_host([&] { return (s.device_start = load_flag<O>(h, slot)) != 0; }, timeout, "the device's first stamp");
    store_flag<O>(h, slot, 0);
    const std::uint64_t t = clock.now();  // after the reset, as the thesis has it
    spin_host([&] { return (s.device_end = load_flag<O>(h, slot)) != 0; }, timeout, "the device's second stamp");
    store_flag<O>(h, slot, 0);
    s.host_ns = clock.to_ns(t);
  }
  return out;
}

// `filter`: the fit's, for a fitted batch (its cutoff is recorded: the batch's samples with an
// interval up to it are fitted); null for the check batch.
Json batch_record(int index, const char* role, double at_s, const std::vector<ClockSample>& batch,
                  const HostClock& clock, double device_ns_per_tick, const ClockFilter* filter) {
  std::vector<std::uint64_t> start, end, host, intervals;
  std::vector<double> half_ns;
  for (const ClockSample& s : batch) {
    start.push_back(s.device_start);
    end.push_back(s.device_end);
    host.push_back(static_cast<std::uint64_t>(s.host_ns * clock.ticks_per_ns() + 0.5));
    half_ns.push_back(static_cast<double>(s.interval_ticks()) * device_ns_per_tick / 2);
    intervals.push_back(s.interval_ticks());
  }
  const Json half = summary_json(half_ns);
  return Json{{"record", "clock_batch"},
              {"probe", "clock"},
              {"batch", index},
              {"role", role},
              {"at_s", at_s},
              {"half_interval_ns", half},
              {"interval_cutoff_ticks", filter ? Json(near_minimum_cutoff(intervals, *filter)) : Json(nullptr)},
              {"warnings", spread_warnings(half, "half_interval_ns")},
              {"device_start", raw_ticks_json("device_ticks", device_ns_per_tick, start)},
              {"device_end", raw_ticks_json("device_ticks", device_ns_per_tick, end)},
              {"host_stamp", raw_ticks_json("host_ticks", 1 / clock.ticks_per_ns(), host)}};
}

// Sleeps until `t0 + seconds`; a Ctrl-C ends the sleep within 50 ms.
void sleep_until_or_interrupted(std::chrono::steady_clock::time_point t0, double seconds) {
  const double left = seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (left > 0) sleep_unless_interrupted(left);
  throw_if_interrupted();
}

}  // namespace

std::vector<ClockSample> sync_batch(Device& device, SignalEngine& engine, const HostClock& clock, int n,
                                    MemoryOrder order, double timeout_s, const PinnedBuffer* given) {
  PinnedBuffer own;
  if (given == nullptr) own = device.alloc_flags(FlagPlacement::pinned, HostCoherence::default_kind, 2 * 128);
  const PinnedBuffer& flags = given ? *given : own;
  std::memset(flags.host(), 0, 2 * 128);
  auto* go = reinterpret_cast<unsigned long long*>(flags.host());
  auto* slot = reinterpret_cast<unsigned long long*>(flags.host() + 128);
  SignalTask t;
  t.kind = SignalKind::clock;
  t.order = order;
  t.to_device = reinterpret_cast<unsigned long long*>(flags.device());
  t.to_host = reinterpret_cast<unsigned long long*>(flags.device() + 128);
  t.count = static_cast<std::uint64_t>(n);
  t.first = 1;
  t.timeout_s = timeout_s;
  const SignalTaskScope task = engine.start(t);  // on an exception it ends before the flags are freed
  std::vector<ClockSample> out;
  with_order(order, [&](auto o) { out = host_side<decltype(o)::value>(clock, go, slot, 1, n, timeout_s); });
  if (engine.join().timed_out) throw Error(ErrorKind::timeout, "the device's clock-sync thread timed out");
  return out;
}

Json SyncFlagChoice::to_json() const {
  return Json{{"tried", p10_half_ns.size()},
              {"bytes_each", kSyncFlagPageBytes},
              {"trial_samples", kSyncFlagTrialSamples},
              {"p10_half_interval_ns", p10_half_ns},
              {"chosen", chosen}};
}

SyncFlagChoice choose_sync_flags(Device& device, SignalEngine& engine, const HostClock& clock, int pages,
                                 MemoryOrder order, double timeout_s) {
  if (pages < 1) throw usage_error("the clock needs at least one flag page to try");
  // All allocated before any is tried, so that each is memory of its own.
  std::vector<PinnedBuffer> tried;
  for (int i = 0; i < pages; ++i) tried.push_back(device.alloc_pinned(kSyncFlagPageBytes));
  SyncFlagChoice c;
  const double ns_per_tick = 1e9 / device.info().timer_hz;
  for (const PinnedBuffer& flags : tried) {
    std::vector<std::uint64_t> intervals;
    for (const ClockSample& s : sync_batch(device, engine, clock, kSyncFlagTrialSamples, order, timeout_s, &flags))
      intervals.push_back(s.interval_ticks());
    const auto p10 = intervals.begin() + static_cast<std::ptrdiff_t>(intervals.size() / 10);
    std::nth_element(intervals.begin(), p10, intervals.end());
    c.p10_half_ns.push_back(static_cast<double>(*p10) * ns_per_tick / 2);
  }
  c.chosen = static_cast<std::size_t>(std::min_element(c.p10_half_ns.begin(), c.p10_half_ns.end()) -
                                      c.p10_half_ns.begin());
  c.flags = std::move(tried[c.chosen]);
  return c;
}

void run_clock(const ClockSyncConfig& cfg, Device& device, const HostClock& clock, const RecordSink& sink) {
  if (cfg.batches < 2) throw usage_error("the clock fit needs at least 2 batches");
  const double dev_ns_per_tick = 1e9 / device.info().timer_hz;
  auto engine = device.make_signal_engine();
  (void)sync_batch(device, *engine, clock, 10, cfg.order, cfg.timeout_s);  // warm-up: first launch, first touch
  const SyncFlagChoice flags = choose_sync_flags(device, *engine, clock, cfg.flag_pages, cfg.order, cfg.timeout_s);
  using Steady = std::chrono::steady_clock;
  const auto t0 = Steady::now();
  // Batches of window_samples each, in time order: the fit's windows are the batches, and each
  // batch record's cutoff is the one the fit applies to it.
  const ClockFilter filter = cfg.filter();
  std::vector<ClockSample> fitted;
  for (int b = 0; b < cfg.batches; ++b) {
    sleep_until_or_interrupted(t0, cfg.span_s * b / (cfg.batches - 1));
    const auto batch = sync_batch(device, *engine, clock, cfg.samples_per_batch, cfg.order, cfg.timeout_s,
                                  &flags.flags);
    sink(batch_record(b, "fit", std::chrono::duration<double>(Steady::now() - t0).count(), batch, clock,
                      dev_ns_per_tick, &filter));
    fitted.insert(fitted.end(), batch.begin(), batch.end());
  }
  sleep_until_or_interrupted(t0, cfg.span_s + cfg.check_after_s);
  const auto check = sync_batch(device, *engine, clock, cfg.samples_per_batch, cfg.order, cfg.timeout_s, &flags.flags);
  sink(batch_record(cfg.batches, "check", std::chrono::duration<double>(Steady::now() - t0).count(), check, clock,
                    dev_ns_per_tick, nullptr));

  const ClockFit fit = fit_clock(fitted, filter);
  const ClockSample later = best_sample(check);
  const ClockPrediction p = predict(fit.mapping, later);
  bool nominal = false;
  const double reference = reference_ns_per_tick(device.info(), nominal);
  Json warnings = clock_fit_warnings(fit.precision_ns, fit.residual_rms_ns, fit.span_ns,
                                     fit.mapping.drift_ppm(reference), p.within_precision, p.error_ns, p.precision_ns);
  for (Json& w :
       below_step_warnings(fit.precision_ns, "precision_ns", device.info().timer_tick_ns, "the device timer's tick",
                           "the kept round trips were shorter than a tick, so the sync is known only to "
                           "about a tick"))
    warnings.push_back(std::move(w));
  std::vector<double> used_residuals;
  for (std::size_t i = 0; i < fitted.size(); ++i)
    if (fit.used[i]) used_residuals.push_back(fit.residuals_ns[i]);
  sink(Json{{"record", "clock_fit"},
            {"probe", "clock"},
            {"host_clock", clock.source()},
            {"device_timer_tick_ns", device.info().timer_tick_ns},
            {"device_timer_hz_at_open", device.info().timer_hz},
            {"mapping",
             {{"device_ref_ticks", fit.mapping.device_ref},
              {"host_ref_ns", fit.mapping.host_ref_ns},
              {"ns_per_tick", fit.mapping.ns_per_tick}}},
            {"offset_ns", fit.mapping.offset_ns()},
            {"drift_ppm", fit.mapping.drift_ppm(reference)},
            {"drift_reference", nominal ? "nominal rate" : "rate measured at open"},
            {"reference_ns_per_tick", reference},
            {"precision_ns", fit.precision_ns},
            {"best_precision_ns", fit.best_precision_ns},
            {"flag_pages", flags.to_json()},
            {"samples_total", fit.samples_total},
            {"samples_used", fit.samples_used},
            {"interval_cutoff_ticks", fit.interval_cutoff_ticks},
            {"span_s", fit.span_ns * 1e-9},
            {"residual_ns", summary_json(used_residuals)},
            {"residual_rms_ns", fit.residual_rms_ns},
            {"residual_max_abs_ns", fit.residual_max_abs_ns},
            {"check",
             {{"after_last_fit_batch_s", cfg.check_after_s},
              {"predicted_host_ns", p.predicted_host_ns},
              {"measured_host_ns", p.measured_host_ns},
              {"error_ns", p.error_ns},
              {"precision_ns", p.precision_ns},
              {"within_precision", p.within_precision}}},
            {"warnings", warnings}});
}

}  // namespace hetprobe
