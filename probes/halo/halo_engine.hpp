// A device's halo engine: the halo-exchange proxy's pack and unpack stages
// (halo_protocol.hpp) with one team (GPU block, host thread) per message, or
// both in one stacked launch (every co-resident block, grid-synchronised).
// The halo probe owns one.
#pragma once

#include "probes/device/device.hpp"
#include "probes/halo/halo_protocol.hpp"

namespace hetprobe {

enum class HaloStage { pack, unpack, stacked };
struct HaloLaunch {
  HaloStage stage = HaloStage::pack;
  HaloArgs args{};              // pack or unpack (stacked: the pack); device addresses;
                                // timeout_ticks is set by the engine from timeout_s
  HaloArgs unpack{};            // stacked only: the unpack
  double timeout_s = 30;        // an unpack gives up waiting for its flag after this
  double poll_pause_ns = 0;     // GPU: pause between two reads of an unpack-ready flag
  int threads_per_block = 128;  // GPU block size (clamped to the device's maximum)
};

class HaloEngine {
 public:
  virtual ~HaloEngine() = default;
  // Starts a stage and returns at once, with the shape it was launched with.
  // Pack and unpack have their own stream (threads), so one of each can run
  // at the same time; stacked runs alone.
  virtual WriterShape start(const HaloLaunch& launch) = 0;
  // Waits until the stage has ended; its waits give up by themselves after
  // the launch's timeout (the stamps say so), or at once after a stop
  // request, so this returns.
  virtual void join(HaloStage stage) = 0;
};

}  // namespace hetprobe
