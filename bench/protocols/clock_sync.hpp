// The clock-sync probe (thesis 003 Sec. 4.3.2; DIGEST 4.3, Q14): the device
// timer related to the host clock by ping-pong, so device timestamps can be
// put on the host timeline. Batches of samples spread over a span are fitted
// with a line (offset and rate: drift), and the fit predicts a later batch.
#pragma once

#include <vector>

#include "bench/core/results.hpp"
#include "bench/protocols/clock_fit.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"
#include "probes/signal/signal_engine.hpp"

namespace hetprobe {

struct ClockSyncConfig {
  int samples_per_batch = 200;
  int batches = 6;           // fitted batches, evenly spread over span_s
  double span_s = 10;        // from the first fitted batch to the last
  double check_after_s = 5;  // the independent check batch, this long after the last fitted one
  // Of each batch, those with round trips within ClockFilter's margin of the batch's shortest are
  // fitted, at least its min_kept and at most this fraction (the shortest).
  double keep_fraction = 0.5;
  // Flag accesses on both sides. fence (volatile loads, store + system fence)
  // has the shortest flag round trip; on H200s its sync precision was 0.78-0.85
  // us, volatile's 0.66 us on one other machine: both under 1 us, not compared
  // on one machine.
  MemoryOrder order = MemoryOrder::fence;
  double timeout_s = 30;
  // Pinned allocations tried for the flags; the sync keeps the one with the shortest round trips
  // (choose_sync_flags). 1: the first, untried.
  int flag_pages = 8;
  // The fit's filter: ClockFilter's defaults, capped at keep_fraction, a window per batch.
  ClockFilter filter() const;
  Json to_json() const;
};

// One batch: `n` ping-pong samples from a single device thread of `engine`
// (one of `device`'s). Per sample: the device posts its timer; the host
// resets the flag, then reads its clock; the device sees the reset and posts
// its timer again (0 is "empty"). `flags`: two flag lines of the device's
// pinned memory to use (allocated here when null).
std::vector<ClockSample> sync_batch(Device& device, SignalEngine& engine, const HostClock& clock, int n,
                                    MemoryOrder order, double timeout_s, const PinnedBuffer* flags = nullptr);

// Where the flags lie moves a sync's round trip, and so the precision's bound: on two H200s of one
// host, 12 pinned allocations of one process gave 10th-percentile round trips from 2432 to 2720 ns,
// as wide as the bound moved between launches, while the host CPU and the device SM moved it by
// one 32 ns step (tests/gpu/bare_clock_placement.cu; docs/metrics.md). So the clock tries `pages`
// allocations of kSyncFlagPageBytes each, kSyncFlagTrialSamples round trips on each, and keeps the
// one whose 10th-percentile round trip is shortest (the first on ties).
inline constexpr std::size_t kSyncFlagPageBytes = std::size_t{4} << 20;
inline constexpr int kSyncFlagTrialSamples = 100;
struct SyncFlagChoice {
  PinnedBuffer flags;               // the chosen allocation; its first two 128 B lines are the flags
  std::vector<double> p10_half_ns;  // per allocation tried: its trial's 10th-percentile half-interval
  std::size_t chosen = 0;           // index into p10_half_ns
  Json to_json() const;
};
SyncFlagChoice choose_sync_flags(Device& device, SignalEngine& engine, const HostClock& clock, int pages,
                                 MemoryOrder order, double timeout_s);

// Runs the batches, the fit and the check; `sink` gets one clock_batch record
// per batch as it is taken, then the clock_fit record.
void run_clock(const ClockSyncConfig& config, Device& device, const HostClock& clock, const RecordSink& sink);

// The device timer's nominal ns per tick where the vendor defines it
// (%globaltimer: 1 ns; the host backend's steady_clock: 1 ns), else the rate
// measured when the device was opened. `nominal` says which.
double reference_ns_per_tick(const DeviceInfo& info, bool& nominal);

}  // namespace hetprobe
