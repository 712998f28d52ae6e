// What the parts of the notify probe share (notify.cpp, notify_handover.cpp):
// the flags of one setup, the session they run in, ticks scaled to ns.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bench/notify/notify.hpp"
#include "probes/launch/launch_engine.hpp"

namespace hetprobe {

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

// The handover part: one record per side, each timing one read + one write of
// a flag the other side wrote last (notify_handover.cpp).
void handovers(Setup& s, OrderPair o, const FlagPair& f, const Json& setup);

}  // namespace hetprobe
