#include "bench/protocols/flag_exchange.hpp"

#include <cstring>

#include "base/errors.hpp"
#include "probes/device/host_spin.hpp"
#include "probes/signal/host_signal_ops.hpp"

namespace hetprobe {

std::size_t spacing_bytes(FlagSpacing spacing) {
  return spacing == FlagSpacing::same_line ? 8 : spacing == FlagSpacing::line ? 128 : 4096;
}

FlagPair alloc_flag_pair(Device& device, FlagPlacement placement, HostCoherence coherence, FlagSpacing spacing) {
  FlagPair f{device.alloc_flags(placement, coherence, FlagPair::kBytes), spacing_bytes(spacing)};
  std::memset(f.memory.host(), 0, f.memory.size());
  return f;
}

std::vector<double> scaled(const std::vector<std::uint64_t>& ticks, double ns_per_tick, double divide) {
  std::vector<double> out;
  out.reserve(ticks.size());
  for (std::uint64_t t : ticks) out.push_back(static_cast<double>(t) * ns_per_tick / divide);
  return out;
}

namespace {

template <MemoryOrder C>
std::vector<std::uint64_t> host_initiated(const HostClock& clock, const FlagPair& f, std::uint64_t first, int n,
                                          double timeout) {
  HostSignalOps h;
  std::vector<std::uint64_t> ticks(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const std::uint64_t seq = first + static_cast<std::uint64_t>(i);
    const std::uint64_t t0 = clock.now();
    store_flag<C>(h, f.to_device(), seq);
    spin_host([&] { return load_flag<C>(h, f.to_host()) >= seq; }, timeout, "the device's echo");
    ticks[static_cast<std::size_t>(i)] = clock.now() - t0;
  }
  return ticks;
}

}  // namespace

std::vector<std::uint64_t> cpu_gpu_cpu_ticks(SignalEngine& signals, const HostClock& clock, OrderPair orders,
                                             const FlagPair& flags, std::uint64_t& seq, int n, int warmup,
                                             double timeout_s) {
  SignalTask echo;
  echo.kind = SignalKind::echo;
  echo.order = orders.gpu;
  echo.to_device = flags.dev(0);
  echo.to_host = flags.dev(flags.spacing);
  echo.first = seq + 1;
  echo.count = static_cast<std::uint64_t>(n + warmup);
  echo.timeout_s = timeout_s;
  seq += echo.count;
  const SignalTaskScope echoing = signals.start(echo);
  std::vector<std::uint64_t> ticks;
  with_order(orders.cpu, [&](auto order) {
    ticks = host_initiated<decltype(order)::value>(clock, flags, echo.first, n + warmup, timeout_s);
  });
  if (signals.join().timed_out) throw Error(ErrorKind::timeout, "the device echo timed out");
  ticks.erase(ticks.begin(), ticks.begin() + warmup);
  return ticks;
}

std::uint64_t cpu_read_write_ticks(MemoryOrder order, const HostClock& clock, unsigned long long* flag, int ops) {
  HostSignalOps h;
  std::uint64_t ticks = 0;
  with_order(order, [&](auto o) {
    constexpr MemoryOrder O = decltype(o)::value;
    const std::uint64_t t0 = clock.now();
    for (int i = 0; i < ops; ++i) store_flag<O>(h, flag, load_flag<O>(h, flag) + 1);
    ticks = clock.now() - t0;
  });
  return ticks;
}

std::uint64_t gpu_read_write_ticks(SignalEngine& signals, MemoryOrder order, unsigned long long* flag, int ops,
                                   double timeout_s) {
  SignalTask t;
  t.kind = SignalKind::overhead;
  t.order = order;
  t.to_device = flag;
  t.count = static_cast<std::uint64_t>(ops);
  t.timeout_s = timeout_s;
  const SignalTaskScope task = signals.start(t);
  const SignalOutcome out = signals.join();
  return out.t_end_ticks - out.t_start_ticks;
}

std::vector<double> cpu_gpu_roundtrip_ns(Device& device, const HostClock& clock, OrderPair orders, int n, int warmup,
                                         double timeout_s) {
  auto signals = device.make_signal_engine();
  return cpu_gpu_roundtrip_ns(device, *signals, clock, orders, n, warmup, timeout_s);
}

std::vector<double> cpu_gpu_roundtrip_ns(Device& device, SignalEngine& signals, const HostClock& clock,
                                         OrderPair orders, int n, int warmup, double timeout_s) {
  const FlagPair f = alloc_flag_pair(device, FlagPlacement::pinned, HostCoherence::default_kind, FlagSpacing::line);
  std::uint64_t seq = 0;
  return scaled(cpu_gpu_cpu_ticks(signals, clock, orders, f, seq, n, warmup, timeout_s), 1 / clock.ticks_per_ns());
}

}  // namespace hetprobe
