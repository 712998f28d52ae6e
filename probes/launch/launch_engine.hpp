// A device's launch engine: the notify probe's mechanisms that need the
// backend's runtime (a kernel launch as the "go", or a synchronise, event,
// host callback, stream memory operation or copy on one leg), each sample a
// host-timed round trip. Only GPU backends have one; DeviceInfo's
// launch_mechanisms lists what a device can time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"

namespace hetprobe {

struct MechanismRun {
  int samples = 1000;
  int warmup = 20;
  double timeout_s = 30;
  const HostClock* clock = nullptr;
};

// Host-timed round trips (go through done) in ticks of the run's HostClock.
// `skipped` says why there are none.
struct MechanismSamples {
  std::vector<std::uint64_t> ticks;
  std::vector<std::uint64_t> go_call_ticks;  // how long the go call itself took
  std::string skipped;
};

class LaunchEngine {
 public:
  virtual ~LaunchEngine() = default;
  // Host-timed samples of one mechanism; where the runtime lacks the call,
  // `skipped` says why.
  virtual MechanismSamples time(LaunchMechanism mechanism, const MechanismRun& run) = 0;
};

}  // namespace hetprobe
