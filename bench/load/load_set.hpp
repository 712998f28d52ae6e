// The GPU loads one rank runs while it times its MPI calls: an engine on each
// GPU it loads (its own first, then others in --load-devices order), the
// others' targets (a pinned buffer of their own, on the NUMA node nearest each
// GPU), their full rates, and what each moved inside a timed interval: the
// interval is put on each GPU's timer by a clock fit from ping-pong syncs
// around the load, and the bytes inside it are read off the load's stamps.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/core/results.hpp"
#include "bench/protocols/clock_fit.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"
#include "probes/load/load_engine.hpp"
#include "probes/signal/signal_engine.hpp"
#include "topology/topology.hpp"

namespace hetprobe {

inline constexpr int kMaxLoadGpus = 16;

struct LoadGpu {
  int ordinal = 0;
  Device* device = nullptr;
  std::unique_ptr<Device> owned;  // every GPU but the rank's own
  std::unique_ptr<LoadEngine> engine;
  std::unique_ptr<SignalEngine> pinger;  // the clock syncs, made at the first
  PinnedBuffer buffer;                   // its own target: every GPU but the rank's, and that one's for OWN
  std::vector<int> helper_cpus;          // where the engine's host threads run
  Json placement;                        // read back: PCI address, NUMA nodes of the GPU and of its buffer, helper CPUs
  Json own_placement;                    // the same with its own buffer (null where it has none)
  std::map<std::pair<LoadKind, Access>, double> full_gbs;
};

class LoadSet {
 public:
  // `order`: the GPUs a load may use, the rank's own first; only the first
  // `max_gpus` are opened. Every GPU but the own gets a buffer of
  // `buffer_bytes`, and the own one too where `own_gets_buffer` (OWN).
  LoadSet(Device& own, const std::vector<int>& order, int max_gpus, std::uint64_t buffer_bytes,
          const Topology& topology, const std::string& rank_cpuset, bool own_gets_buffer = false);
  ~LoadSet();
  int size() const { return static_cast<int>(gpus_.size()); }
  const LoadGpu& gpu(int i) const { return gpus_.at(static_cast<std::size_t>(i)); }
  // GPU i's target: `own_target` for the rank's own GPU, its buffer for the
  // others; every GPU's own buffer where `in_own_buffer` (OWN).
  std::byte* target(int i, std::byte* own_target, bool in_own_buffer = false) const;

  // GPU i's full rate of a kind, GB/s: measured once, 50 ms alone on `target`.
  double full_rate_gbs(int i, LoadKind kind, Access access, std::byte* target, std::uint64_t bytes, double timeout_s);

  // A burst of ping-pong clock samples from each of the first `n` GPUs, added
  // to `into[i]`: taken before and after the loads run (a running load leaves
  // the GPU no room for the sync's thread).
  void sync(int n, const HostClock& clock, double timeout_s, std::vector<std::vector<ClockSample>>& into);
  // Starts `tasks` (one per GPU, the first tasks.size() GPUs) and returns once
  // every one moves data. Epochs are set here.
  void start(std::vector<LoadTask> tasks, double timeout_s);
  // Tells the running loads the host is still there (their timeout restarts).
  void keep_alive();
  // Stops and joins the running loads.
  std::vector<LoadOutcome> stop();
  // After stop(): bytes GPU i moved inside [from_ns, to_ns] of the host clock,
  // `mapping` putting its timer on that clock; nullopt when its stamps do not cover it.
  std::optional<double> bytes_between(int i, const ClockMapping& mapping, double from_ns, double to_ns) const;

 private:
  std::vector<LoadGpu> gpus_;
  std::vector<PinnedBuffer> sync_flags_;  // per GPU: the clock sync's two flag lines
  std::uint64_t epoch_ = 0;
  std::size_t running_ = 0;
};

}  // namespace hetprobe
