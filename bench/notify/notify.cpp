// The notification probes. Record fields and units: docs/results-schema.md.
//
// handover (paper 002 Table 1; notify_handover.cpp): one flag read + one flag
//   write on a flag the other side wrote last, each pair timed alone.
// overhead: one flag read followed by one flag write, `overhead_ops` times in
//   a row on a line the timing side owns, timed as a whole and divided (a loop
//   time: store forwarding hides the memory); the CPU side on the host clock,
//   the GPU side on the device timer; each uncontended and with the other side
//   polling the same flag.
// roundtrip: CPU->GPU->CPU timed on the host (a persistent device thread
//   echoes), GPU->CPU->GPU timed on the device (the host echoes).
// mechanisms: host-timed round trips (go through done) where one leg is the
//   mechanism under test; pure flag ones here, launch ones in the backend.
#include "bench/notify/notify.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include "base/errors.hpp"
#include "base/stats.hpp"
#include "base/text_list.hpp"
#include "bench/core/noise.hpp"
#include "bench/notify/notify_parts.hpp"
#include "probes/device/host_spin.hpp"
#include "probes/launch/launch_engine.hpp"
#include "probes/signal/host_signal_ops.hpp"

namespace hetprobe {

// Not a table's list: each item is a pair, and "all" would be every pair.
std::vector<OrderPair> parse_order_pairs(const std::string& text) {
  std::vector<OrderPair> out;
  for (const std::string& item : split_list(text, "memory order list")) {
    const auto sides = split_list(item, "memory order", ':');
    if (sides.size() > 2) throw usage_error("memory order '" + item + "': expected ORDER or CPU_ORDER:GPU_ORDER");
    const OrderPair pair{kMemoryOrderNames.parse(sides[0]), kMemoryOrderNames.parse(sides.back())};
    if (std::find(out.begin(), out.end(), pair) != out.end())
      throw usage_error("memory order '" + item + "' is listed twice");
    out.push_back(pair);
  }
  return out;
}

std::vector<LaunchMechanism> all_launch_mechanisms() { return kLaunchMechanismNames.all(); }

Json NotifyConfig::to_json() const {
  Json j;
  j["parts"] = Json::array();
  for (NotifyPart p : parts) j["parts"].push_back(kNotifyPartNames.name(p));
  j["orders"] = Json::array();
  for (const OrderPair& o : orders) j["orders"].push_back({{"cpu", to_string(o.cpu)}, {"gpu", to_string(o.gpu)}});
  j["placements"] = Json::array();
  for (FlagPlacement p : placements) j["placements"].push_back(to_string(p));
  j["spacings"] = Json::array();
  for (FlagSpacing s : spacings) j["spacings"].push_back(to_string(s));
  j["host_memory"] = to_string(host_memory);
  j["handover_samples"] = handover_samples;
  j["overhead_ops"] = overhead_ops;
  j["overhead_samples"] = overhead_samples;
  j["exchanges"] = exchanges;
  j["mechanism_samples"] = mechanism_samples;
  j["warmup"] = warmup;
  j["timeout_s"] = timeout_s;
  return j;
}

namespace {

// Where a flag record was measured: the parameters that decide its numbers.
Json flag_setup(OrderPair o, FlagPlacement placement, FlagSpacing spacing, HostCoherence coherence) {
  return Json{{"cpu_order", to_string(o.cpu)},           {"gpu_order", to_string(o.gpu)},
              {"placement", to_string(placement)},       {"spacing", to_string(spacing)},
              {"spacing_bytes", spacing_bytes(spacing)}, {"host_memory", to_string(coherence)}};
}

// A device-timed summary is only reported where the timer resolved it: an
// interval shorter than one tick says nothing beyond "under a tick".
Json device_timed_summary(const std::vector<double>& ns, double total_tick_ns, double divide) {
  Json j = summary_json(ns);
  const double resolution = total_tick_ns / divide;
  j["resolution_ns"] = resolution;
  if (!ns.empty() && summarize(ns).median * divide < total_tick_ns) {
    j["unresolved"] = true;
    for (const char* k : {"min", "p10", "median", "p90", "p99", "max", "mean", "stddev"}) j[k] = nullptr;
  }
  return j;
}

// ---- overhead --------------------------------------------------------------

void overhead_cpu(Setup& s, OrderPair o, const FlagPair& f, bool contended, Json base) {
  SignalTask poller;
  std::optional<SignalTaskScope> polling;
  if (contended) {
    poller.kind = SignalKind::poll;
    poller.order = o.gpu;
    poller.to_device = f.dev(FlagPair::kCounterAt);
    poller.stop = f.dev(FlagPair::kStopAt);
    poller.first = ++s.seq;
    poller.timeout_s = s.config.timeout_s;
    polling.emplace(s.signals.start(poller));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // let the poller start
  }
  std::vector<std::uint64_t> ticks;
  for (int i = 0; i < s.config.warmup; ++i) cpu_read_write_ticks(o.cpu, s.clock, f.counter(), 10);
  for (int i = 0; i < s.config.overhead_samples; ++i)
    ticks.push_back(cpu_read_write_ticks(o.cpu, s.clock, f.counter(), s.config.overhead_ops));
  if (contended) {
    HostSignalOps h;
    store_flag<MemoryOrder::acq_rel>(h, f.stop(), poller.first);
    const SignalOutcome out = s.signals.join();
    if (out.timed_out) throw Error(ErrorKind::timeout, "the device poller did not see the stop flag");
    base["contender_loads"] = out.value;
  }
  const std::vector<double> ns = scaled(ticks, s.host_ns_per_tick(), s.config.overhead_ops);
  base["ns_per_op"] = summary_json(ns);
  base["warnings"] = spread_warnings(base["ns_per_op"], "ns_per_op", s.config.overhead_ops);
  // Each read waits for the write before it, so a pair under one cycle never
  // went to memory (the host backend's 0.28 ns on a 2.6 GHz EPYC).
  if (s.clock.counts_cycles() && !ns.empty())
    for (Json& w : below_step_warnings(summarize(ns).median, "ns_per_op median", s.host_ns_per_tick(),
                                       "a tick of the TSC, the CPU's nominal cycle",
                                       "each read took the previous write's value inside the core (store "
                                       "forwarding), so this times the loop, not a flag another agent sees"))
      base["warnings"].push_back(std::move(w));
  base["samples"] = raw_ticks_json("host_ticks", s.host_ns_per_tick(), ticks);
  s.sink(base);
}

void overhead_gpu(Setup& s, OrderPair o, const FlagPair& f, bool contended, Json base) {
  std::atomic<bool> stop{false};
  std::uint64_t polls = 0;
  std::thread poller;
  if (contended)
    poller = std::thread([&] {
      with_order(o.cpu, [&](auto order) {
        HostSignalOps h;
        while (!stop.load(std::memory_order_relaxed))
          polls += load_flag<decltype(order)::value>(h, f.counter()) != ~0ull;
      });
    });
  std::vector<std::uint64_t> ticks;
  try {
    for (int i = 0; i < s.config.warmup / 10 + 1 + s.config.overhead_samples; ++i) {
      const std::uint64_t t = gpu_read_write_ticks(s.signals, o.gpu, f.dev(FlagPair::kCounterAt), s.config.overhead_ops,
                                                   s.config.timeout_s);
      if (i > s.config.warmup / 10) ticks.push_back(t);
    }
  } catch (...) {
    stop = true;
    if (poller.joinable()) poller.join();
    throw;
  }
  stop = true;
  if (poller.joinable()) poller.join();
  if (contended) base["contender_loads"] = polls;
  const std::vector<double> ns = scaled(ticks, s.device_ns_per_tick(), s.config.overhead_ops);
  base["ns_per_op"] = device_timed_summary(ns, s.device.info().timer_tick_ns, s.config.overhead_ops);
  base["warnings"] = spread_warnings(base["ns_per_op"], "ns_per_op", s.config.overhead_ops);
  base["samples"] = raw_ticks_json("device_ticks", s.device_ns_per_tick(), ticks);
  s.sink(base);
}

// ---- round trips -----------------------------------------------------------

template <MemoryOrder C>
void host_echo(const FlagPair& f, std::uint64_t first, int n, double timeout) {
  HostSignalOps h;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t seq = first + static_cast<std::uint64_t>(i);
    spin_host([&] { return load_flag<C>(h, f.to_host()) >= seq; }, timeout, "the device's ping");
    store_flag<C>(h, f.to_device(), seq);
  }
}

// CPU->GPU->CPU: host-timed ticks of `n` exchanges after `warmup`.
std::vector<std::uint64_t> cpu_gpu_cpu(Setup& s, OrderPair o, const FlagPair& f, int n, int warmup) {
  return cpu_gpu_cpu_ticks(s.signals, s.clock, o, f, s.seq, n, warmup, s.config.timeout_s);
}

// GPU->CPU->GPU: device-timed ticks of `n` exchanges after `warmup`.
std::vector<std::uint64_t> gpu_cpu_gpu(Setup& s, OrderPair o, const FlagPair& f, int n, int warmup) {
  const auto count = static_cast<std::size_t>(n + warmup);
  PinnedBuffer out = s.device.alloc_pinned(count * sizeof(std::uint64_t));
  SignalTask init;
  init.kind = SignalKind::initiate;
  init.order = o.gpu;
  init.to_device = f.dev(0);
  init.to_host = f.dev(f.spacing);
  init.samples = reinterpret_cast<unsigned long long*>(out.device());
  init.first = s.seq + 1;
  init.count = count;
  init.timeout_s = s.config.timeout_s;
  s.seq += count;
  const SignalTaskScope initiating = s.signals.start(init);
  with_order(o.cpu,
             [&](auto order) { host_echo<decltype(order)::value>(f, init.first, n + warmup, s.config.timeout_s); });
  if (s.signals.join().timed_out) throw Error(ErrorKind::timeout, "the device initiator timed out");
  const auto* v = reinterpret_cast<const std::uint64_t*>(out.host());
  return std::vector<std::uint64_t>(v + warmup, v + count);
}

void roundtrips(Setup& s, OrderPair o, const FlagPair& f, Json base) {
  const int n = s.config.exchanges, w = s.config.warmup;
  const std::vector<std::uint64_t> host = cpu_gpu_cpu(s, o, f, n, w);
  Json a = base;
  a["direction"] = "cpu-gpu-cpu";
  a["timed_by"] = "host";
  const std::vector<double> host_ns = scaled(host, s.host_ns_per_tick());
  a["roundtrip_ns"] = summary_json(host_ns);
  a["warnings"] = spread_warnings(a["roundtrip_ns"], "roundtrip_ns");
  a["half_roundtrip_ns"] = summary_json(scaled(host, s.host_ns_per_tick(), 2));
  a["samples"] = raw_ticks_json("host_ticks", s.host_ns_per_tick(), host);
  s.sink(a);

  const std::vector<std::uint64_t> dev = gpu_cpu_gpu(s, o, f, n, w);
  Json b = base;
  b["direction"] = "gpu-cpu-gpu";
  b["timed_by"] = "device";
  const double tick = s.device.info().timer_tick_ns;
  b["roundtrip_ns"] = device_timed_summary(scaled(dev, s.device_ns_per_tick()), tick, 1);
  b["warnings"] = spread_warnings(b["roundtrip_ns"], "roundtrip_ns");
  b["half_roundtrip_ns"] = device_timed_summary(scaled(dev, s.device_ns_per_tick(), 2), tick, 2);
  b["samples"] = raw_ticks_json("device_ticks", s.device_ns_per_tick(), dev);
  s.sink(b);
}

// ---- mechanisms ------------------------------------------------------------

struct MechanismDescription {
  const char* name;
  const char* go;
  const char* done;
};

MechanismDescription describe(LaunchMechanism m) {
  switch (m) {
    case LaunchMechanism::launch_flag:
      return {to_string(m), "kernel launch", "kernel stores a pinned flag (system-scope release); host polls it"};
    case LaunchMechanism::launch_device_sync:
      return {to_string(m), "launch of an empty kernel", "device synchronise returns"};
    case LaunchMechanism::launch_event_query:
      return {to_string(m), "launch of an empty kernel", "event recorded after it; host polls event query"};
    case LaunchMechanism::launch_event_sync:
      return {to_string(m), "launch of an empty kernel", "event recorded after it; event synchronise returns"};
    case LaunchMechanism::launch_host_callback:
      return {to_string(m), "launch of an empty kernel", "host function enqueued after it runs; host polls its flag"};
    case LaunchMechanism::launch_stream_write_value:
      return {to_string(m), "launch of an empty kernel", "stream write-value op to a pinned flag; host polls it"};
    case LaunchMechanism::device_flag_memcpy:
      return {to_string(m), "async host-to-device copy into a device-memory flag a persistent thread polls",
              "that thread stores a pinned flag (system-scope release); host polls it"};
    case LaunchMechanism::stream_wait_value:
      return {to_string(m), "host stores a pinned flag a stream wait-value op waits on (>=), a queued kernel behind it",
              "the kernel stores a pinned flag (system-scope release); host polls it"};
  }
  return {"?", "?", "?"};
}

Json mechanism_record(const std::string& name, const std::string& go, const std::string& done, const Json& setup) {
  Json j{{"record", "mechanism"}, {"probe", "notify"}, {"mechanism", name}, {"go", go}, {"done", done}};
  j["setup"] = setup;
  j["warnings"] = Json::array();  // a skipped one has none
  return j;
}

void flag_mechanism(Setup& s, const char* name, OrderPair o, FlagPlacement placement, const char* go,
                    const char* done) {
  const HostCoherence coherence = s.config.host_memory;
  Json j = mechanism_record(name, go, done, flag_setup(o, placement, FlagSpacing::line, coherence));
  try {
    const FlagPair f = alloc_flag_pair(s.device, placement, coherence, FlagSpacing::line);
    const std::vector<std::uint64_t> ticks = cpu_gpu_cpu(s, o, f, s.config.mechanism_samples, s.config.warmup);
    j["status"] = "ok";
    j["roundtrip_ns"] = summary_json(scaled(ticks, s.host_ns_per_tick()));
    j["samples"] = raw_ticks_json("host_ticks", s.host_ns_per_tick(), ticks);
    j["warnings"] = spread_warnings(j["roundtrip_ns"], "roundtrip_ns");
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::unsupported) throw;
    j["status"] = "skipped";
    j["skipped_reason"] = e.what();
  }
  s.sink(j);
}

void launch_mechanism(Setup& s, LaunchMechanism m) {
  const MechanismDescription d = describe(m);
  Json j = mechanism_record(d.name, d.go, d.done, Json{{"host_memory", "default"}});
  MechanismRun run{s.config.mechanism_samples, s.config.warmup, s.config.timeout_s, &s.clock};
  const auto& can = s.device.info().launch_mechanisms;
  MechanismSamples out;
  if (std::find(can.begin(), can.end(), m) == can.end()) {
    out.skipped = "no kernel launches on the " + s.device.info().backend + " backend";
  } else {
    if (!s.launches) s.launches = s.device.make_launch_engine();
    out = s.launches->time(m, run);
  }
  if (!out.skipped.empty()) {
    j["status"] = "skipped";
    j["skipped_reason"] = out.skipped;
  } else {
    j["status"] = "ok";
    j["roundtrip_ns"] = summary_json(scaled(out.ticks, s.host_ns_per_tick()));
    j["go_call_ns"] = summary_json(scaled(out.go_call_ticks, s.host_ns_per_tick()));
    j["warnings"] = spread_warnings(j["roundtrip_ns"], "roundtrip_ns");
    j["samples"] = raw_ticks_json("host_ticks", s.host_ns_per_tick(), out.ticks);
  }
  s.sink(j);
}

constexpr std::size_t kFlagMechanisms = 4;  // the flag_mechanism() calls below

void mechanisms(Setup& s) {
  const auto v = MemoryOrder::volatile_access, a = MemoryOrder::acq_rel, f = MemoryOrder::fence;
  flag_mechanism(s, "pinned-flag-volatile", {v, v}, FlagPlacement::pinned,
                 "host volatile store to a pinned flag a persistent thread polls (volatile)",
                 "the thread's volatile store to a pinned flag; host polls it (volatile)");
  flag_mechanism(s, "pinned-flag-volatile+fence", {f, f}, FlagPlacement::pinned,
                 "host volatile store + system fence to a pinned flag a persistent thread polls (volatile)",
                 "the thread's volatile store + system fence; host polls it (volatile)");
  flag_mechanism(s, "pinned-flag-atomic", {a, a}, FlagPlacement::pinned,
                 "host release store to a pinned flag a persistent thread polls (system-scope acquire)",
                 "the thread's system-scope release store; host acquire loads");
  flag_mechanism(s, "managed-flag", {f, f}, FlagPlacement::managed,
                 "host volatile store + system fence to a managed flag a persistent thread polls (volatile)",
                 "the thread's volatile store + system fence to a managed flag; host polls it (volatile)");
  for (LaunchMechanism m : all_launch_mechanisms()) launch_mechanism(s, m);
}

}  // namespace

std::size_t notify_mechanism_count() { return kFlagMechanisms + all_launch_mechanisms().size(); }

void check_notify_config(const NotifyConfig& config, const DeviceInfo& device) {
  if (config.host_memory != HostCoherence::default_kind && !device.host_coherence_kinds)
    throw usage_error("--host-memory " + std::string(to_string(config.host_memory)) +
                      " is a HIP allocation option; this run uses the " + device.backend + " backend");
  for (FlagPlacement p : config.placements)
    if (p == FlagPlacement::managed && !device.has_flag_placement(p))
      throw usage_error("--placement managed: " + device.name + " (" + device.backend +
                        ") cannot share managed memory with the host while a kernel runs");
}

void run_notify(const NotifyConfig& config, Device& device, const HostClock& clock, const RecordSink& sink) {
  auto signals = device.make_signal_engine();
  Setup s{device, *signals, clock, config, sink};
  const auto has = [&](NotifyPart p) {
    return std::find(config.parts.begin(), config.parts.end(), p) != config.parts.end();
  };
  for (FlagPlacement placement : config.placements)
    for (FlagSpacing spacing : config.spacings) {
      const FlagPair f = alloc_flag_pair(device, placement, config.host_memory, spacing);
      for (const OrderPair& o : config.orders) {
        const Json setup = flag_setup(o, placement, spacing, config.host_memory);
        if (has(NotifyPart::handover)) handovers(s, o, f, setup);
        if (has(NotifyPart::overhead))
          for (const char* side : {"cpu", "gpu"})
            for (bool contended : {false, true}) {
              Json base{{"record", "overhead"},
                        {"probe", "notify"},
                        {"side", side},
                        {"contended", contended},
                        {"ops_per_sample", config.overhead_ops},
                        {"setup", setup}};
              if (side[0] == 'c') overhead_cpu(s, o, f, contended, base);
              else overhead_gpu(s, o, f, contended, base);
            }
        if (has(NotifyPart::roundtrip))
          roundtrips(
              s, o, f,
              Json{{"record", "roundtrip"}, {"probe", "notify"}, {"exchanges", config.exchanges}, {"setup", setup}});
      }
    }
  if (has(NotifyPart::mechanisms)) mechanisms(s);
}

}  // namespace hetprobe
