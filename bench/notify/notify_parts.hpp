// What the parts of the notify probe share (notify.cpp, notify_handover.cpp):
// the flags of one setup, the session they run in, ticks scaled to ns.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bench/notify/notify.hpp"
#include "probes/launch/launch_engine.hpp"

namespace hetprobe {

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

struct Setup {
  Device& device;
  SignalEngine& signals;  // the device thread of every flag exchange
  const HostClock& clock;
  const NotifyConfig& config;
  const RecordSink& sink;
  std::unique_ptr<LaunchEngine> launches = nullptr;  // made for the first launch mechanism
  std::uint64_t seq = 0;                             // flags only grow: every exchange of the run gets its own number
  double host_ns_per_tick() const { return 1 / clock.ticks_per_ns(); }
  double device_ns_per_tick() const { return 1e9 / device.info().timer_hz; }
};

// Each tick count x ns_per_tick / divide.
std::vector<double> scaled(const std::vector<std::uint64_t>& ticks, double ns_per_tick, double divide = 1);

// The handover part: one record per side, each timing one read + one write of
// a flag the other side wrote last (notify_handover.cpp).
void handovers(Setup& s, OrderPair o, const FlagPair& f, const Json& setup);

}  // namespace hetprobe
