// The handover part (paper 002 Table 1, in the paper's sense): what one flag
// read + one flag write costs a side when the other side wrote the flag last.
//
// cpu: the device thread writes the target (2 x seq), then its "written" flag
//   (a release store, so the target is seen first); the host waits for it,
//   times one load + one store of the target on its clock, then asks for the
//   next one. gpu: the host writes the target, then a go flag; the device
//   thread times its load + store on its timer and acknowledges. The target is
//   on a page of its own, so no wait spins on its line.
//
// The host's region is read with now_ordered() (lfence; rdtsc; lfence), so it
// holds the load's miss, not only its issue. Each timer's own cost (the host
// clock's empty region of the same reads, the
// device timer's back-to-back read) is measured on the same thread just
// before, as many times; the record's pair_beyond_timer_ns is the pair's
// median less that median.
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "base/stats.hpp"
#include "bench/core/noise.hpp"
#include "bench/notify/notify_parts.hpp"
#include "probes/device/host_spin.hpp"
#include "probes/signal/host_signal_ops.hpp"

namespace hetprobe {

namespace {

constexpr auto kRelease = MemoryOrder::acq_rel;  // the waits' flags: release stores, acquire loads

// What one side measured: its pairs and its timer's empty regions, in its ticks.
struct HandoverTicks {
  std::vector<std::uint64_t> pairs, timer;
  std::uint64_t missed = 0;  // pairs whose load did not see the other side's write
};

// cpu: the host's pairs on the target the device thread writes before each.
template <MemoryOrder C>
void host_pairs(const Setup& s, const FlagPair& f, std::uint64_t first, std::size_t n, HandoverTicks& out) {
  HostSignalOps h;
  out.pairs.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t seq = first + i;
    store_flag<kRelease>(h, f.to_device(), seq);
    spin_host([&] { return load_flag<kRelease>(h, f.to_host()) >= seq; }, s.config.timeout_s,
              "the device's write of the handover flag");
    const std::uint64_t t0 = s.clock.now_ordered();  // the load's miss inside the region, not its issue
    const unsigned long long seen = load_flag<C>(h, f.target());
    store_flag<C>(h, f.target(), seen + 1);
    out.pairs[i] = s.clock.now_ordered() - t0;
    out.missed += seen < 2 * seq;
  }
}

// gpu: the host writes the target, then the go; the device thread times its pair.
template <MemoryOrder C>
void host_writes(const Setup& s, const FlagPair& f, std::uint64_t first, std::size_t n) {
  HostSignalOps h;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t seq = first + i;
    store_flag<C>(h, f.target(), 2 * seq);
    store_flag<kRelease>(h, f.to_device(), seq);
    spin_host([&] { return load_flag<kRelease>(h, f.to_host()) >= seq; }, s.config.timeout_s,
              "the device's handover pair");
  }
}

SignalTask handover_task(Setup& s, SignalKind kind, MemoryOrder order, const FlagPair& f, std::size_t count) {
  SignalTask t;
  t.kind = kind;
  t.order = order;
  t.to_device = f.dev(0);
  t.to_host = f.dev(f.spacing);
  t.target = f.dev(FlagPair::kTargetAt);
  t.first = s.seq + 1;
  t.count = count;
  t.timeout_s = s.config.timeout_s;
  s.seq += count;
  return t;
}

void join_or_throw(SignalEngine& signals, const char* what) {
  if (signals.join().timed_out) throw Error(ErrorKind::timeout, std::string("the device's ") + what + " timed out");
}

HandoverTicks cpu_side(Setup& s, OrderPair o, const FlagPair& f) {
  const auto n = static_cast<std::size_t>(s.config.handover_samples),
             warmup = static_cast<std::size_t>(s.config.warmup);
  HandoverTicks out;
  out.timer.resize(n);
  for (std::uint64_t& t : out.timer) t = s.clock.ordered_empty_region_ticks();
  const SignalTask writes = handover_task(s, SignalKind::handover_write, o.gpu, f, warmup + n);
  const SignalTaskScope writing = s.signals.start(writes);
  with_order(o.cpu, [&](auto order) { host_pairs<decltype(order)::value>(s, f, writes.first, warmup + n, out); });
  join_or_throw(s.signals, "handover writes");
  out.pairs.erase(out.pairs.begin(), out.pairs.begin() + static_cast<std::ptrdiff_t>(warmup));
  return out;
}

// `count` device-timed intervals of a task that stores them in `samples`.
std::vector<std::uint64_t> device_samples(const PinnedBuffer& samples, std::size_t skip, std::size_t count) {
  const auto* v = reinterpret_cast<const std::uint64_t*>(samples.host());
  return std::vector<std::uint64_t>(v + skip, v + skip + count);
}

HandoverTicks gpu_side(Setup& s, OrderPair o, const FlagPair& f) {
  const auto n = static_cast<std::size_t>(s.config.handover_samples),
             warmup = static_cast<std::size_t>(s.config.warmup);
  PinnedBuffer samples = s.device.alloc_pinned((warmup + n) * sizeof(std::uint64_t));
  HandoverTicks out;
  {
    SignalTask cost = handover_task(s, SignalKind::timer_cost, o.gpu, f, n);
    cost.samples = reinterpret_cast<unsigned long long*>(samples.device());
    const SignalTaskScope timing = s.signals.start(cost);
    join_or_throw(s.signals, "timer reads");
    out.timer = device_samples(samples, 0, n);
  }
  SignalTask pairs = handover_task(s, SignalKind::handover_pair, o.gpu, f, warmup + n);
  pairs.samples = reinterpret_cast<unsigned long long*>(samples.device());
  const SignalTaskScope pairing = s.signals.start(pairs);
  with_order(o.cpu, [&](auto order) { host_writes<decltype(order)::value>(s, f, pairs.first, warmup + n); });
  const SignalOutcome done = s.signals.join();
  if (done.timed_out) throw Error(ErrorKind::timeout, "the device's handover pairs timed out");
  out.pairs = device_samples(samples, warmup, n);
  out.missed = done.value;  // the warm-up pairs included, as on the CPU side
  return out;
}

// The record of one side: the pair's summary, the timer's, the pair beyond
// the timer and what its timer cannot resolve.
Json handover_record(Json base, const HandoverTicks& t, double ns_per_tick, double tick_ns, const std::string& timer,
                     const std::string& tick_name) {
  const std::vector<double> pair_ns = scaled(t.pairs, ns_per_tick), timer_ns = scaled(t.timer, ns_per_tick);
  const double pair_median = summarize(pair_ns).median, timer_median = summarize(timer_ns).median;
  const double beyond = pair_median - timer_median;
  base["timer"] = timer;
  base["pairs"] = t.pairs.size();
  base["pair_ns"] = summary_json(pair_ns);
  base["timer_cost_ns"] = summary_json(timer_ns);
  base["pair_beyond_timer_ns"] = beyond;
  base["timer_tick_ns"] = tick_ns;
  base["below_timer_tick"] = beyond < tick_ns;
  base["missed_writes"] = t.missed;
  Json warnings = spread_warnings(base["pair_ns"], "pair_ns");
  for (Json& w : below_step_warnings(beyond, "pair_beyond_timer_ns", tick_ns, tick_name,
                                     "the pair took less than one step of its timer beyond the timer's own cost"))
    warnings.push_back(std::move(w));
  if (t.missed > 0)
    warnings.push_back(std::to_string(t.missed) +
                       " pairs loaded a value older than the other side's write (threshold 0): those pairs did "
                       "not read the flag the other side wrote last");
  base["warnings"] = std::move(warnings);
  base["samples"] = raw_ticks_json(base["timed_by"].get<std::string>() + "_ticks", ns_per_tick, t.pairs);
  return base;
}

}  // namespace

void handovers(Setup& s, OrderPair o, const FlagPair& f, const Json& setup) {
  const auto base = [&](const char* side, const char* timed_by) {
    return Json{{"record", "handover"}, {"probe", "notify"}, {"side", side}, {"timed_by", timed_by}, {"setup", setup}};
  };
  const std::string host_tick = s.clock.counts_cycles() ? "a tick of the TSC, the CPU's nominal cycle"
                                                        : "a tick of " + s.clock.source();
  s.sink(handover_record(base("cpu", "host"), cpu_side(s, o, f), s.host_ns_per_tick(), s.host_ns_per_tick(),
                         s.clock.source(), host_tick));
  s.sink(handover_record(base("gpu", "device"), gpu_side(s, o, f), s.device_ns_per_tick(),
                         s.device.info().timer_tick_ns, "device", "the device timer's smallest step"));
}

}  // namespace hetprobe
