// The flag exchanges the probes share: a CPU->GPU->CPU round trip through two
// pinned flags, and a loop of flag reads and writes timed by either side.
// The notify probe measures them in every setup; the gpus probe and
// hetprobe-micro take one round trip or loop each, so they live here, in a
// room of their own, not in the notify probe's folder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/enum_table.hpp"
#include "probes/device/device.hpp"
#include "probes/device/device_names.hpp"
#include "probes/device/host_clock.hpp"
#include "probes/signal/signal_engine.hpp"

namespace hetprobe {

// The memory-ordering primitive of each side for one configuration.
struct OrderPair {
  MemoryOrder cpu = MemoryOrder::volatile_access;
  MemoryOrder gpu = MemoryOrder::volatile_access;
  auto operator<=>(const OrderPair&) const = default;
};

// Distance between the to-device and the to-host flag.
enum class FlagSpacing { same_line, line, page };  // 8 B, 128 B, 4096 B apart
inline constexpr EnumTable<FlagSpacing, 3> kFlagSpacingNames{"flag spacing",
                                                             {{{FlagSpacing::same_line, "same-line"},
                                                               {FlagSpacing::line, "line"},
                                                               {FlagSpacing::page, "page"}}}};
inline const char* to_string(FlagSpacing spacing) { return kFlagSpacingNames.name(spacing); }
std::size_t spacing_bytes(FlagSpacing spacing);

// Two flags in one allocation: to_device at 0, to_host `spacing` later; a stop
// flag, the overhead counter and the handover target on pages of their own.
struct FlagPair {
  PinnedBuffer memory;
  std::size_t spacing;
  static constexpr std::size_t kStopAt = 2 * 4096, kCounterAt = 3 * 4096, kTargetAt = 4 * 4096, kBytes = 5 * 4096;
  unsigned long long* host(std::size_t offset) const {
    return reinterpret_cast<unsigned long long*>(memory.host() + offset);
  }
  unsigned long long* dev(std::size_t offset) const {
    return reinterpret_cast<unsigned long long*>(memory.device() + offset);
  }
  unsigned long long* to_device() const { return host(0); }
  unsigned long long* to_host() const { return host(spacing); }
  unsigned long long* stop() const { return host(kStopAt); }
  // The overhead probe's flag: it counts up, so it must not be an exchange flag.
  unsigned long long* counter() const { return host(kCounterAt); }
  // The handover's flag: the other side wrote it last, away from the lines the waits spin on.
  unsigned long long* target() const { return host(kTargetAt); }
};

FlagPair alloc_flag_pair(Device& device, FlagPlacement placement, HostCoherence coherence, FlagSpacing spacing);

// Each tick count x ns_per_tick / divide.
std::vector<double> scaled(const std::vector<std::uint64_t>& ticks, double ns_per_tick, double divide = 1);

// CPU->GPU->CPU: host-timed ticks of `n` exchanges after `warmup`, a device
// thread of `signals` echoing. Flags only grow: the exchanges take the numbers
// after `seq`, which is advanced past them.
std::vector<std::uint64_t> cpu_gpu_cpu_ticks(SignalEngine& signals, const HostClock& clock, OrderPair orders,
                                             const FlagPair& flags, std::uint64_t& seq, int n, int warmup,
                                             double timeout_s);

// One overhead sample (a loop on a line the side owns; the handover part is
// Table 1 of paper 002): `ops` x (load flag; store flag + 1) with `order`, timed as a whole: by the host on `clock`
// (host ticks), or by one device thread on its timer (device ticks; `flag` a device address).
std::uint64_t cpu_read_write_ticks(MemoryOrder order, const HostClock& clock, unsigned long long* flag, int ops);
std::uint64_t gpu_read_write_ticks(SignalEngine& signals, MemoryOrder order, unsigned long long* flag, int ops,
                                   double timeout_s);

// A host-timed CPU->GPU->CPU round trip through pinned flags: `n` samples in
// ns (after `warmup`). For hetprobe-micro and the tests.
std::vector<double> cpu_gpu_roundtrip_ns(Device& device, const HostClock& clock, OrderPair orders, int n, int warmup,
                                         double timeout_s);
// The same with the caller's signal engine (the gpus probe's, made once per
// run); the flags are allocated for the call, so each call samples where they land.
std::vector<double> cpu_gpu_roundtrip_ns(Device& device, SignalEngine& signals, const HostClock& clock,
                                         OrderPair orders, int n, int warmup, double timeout_s);

}  // namespace hetprobe
