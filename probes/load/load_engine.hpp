// A device's load engine: traffic in pinned host memory of one kind, at full
// rate or paced, started and stopped by the host, with progress stamps that
// say how many bytes it moved when (load_protocol.hpp). Each backend
// implements it: GPU kernels (write, read, poll) and the copy engine
// (copy-d2h, copy-h2d) on a GPU; CPU threads on the host backend. The probe
// that makes an engine owns it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probes/device/device.hpp"
#include "probes/load/load_protocol.hpp"

namespace hetprobe {

const char* to_string(LoadKind kind);
// A name of kLoadKindNames (load_names.hpp); throws a usage Error otherwise.
LoadKind parse_load_kind(const std::string& text);
// Kinds the device's threads make (access modes apply); the others are the copy engine's or none.
inline bool load_uses_threads(LoadKind k) { return k == LoadKind::write || k == LoadKind::read || k == LoadKind::poll; }

struct LoadTask {
  LoadKind kind = LoadKind::write;
  Access access = Access::stacked;  // thread kinds: one block (stream) or every co-resident block (stacked)
  std::byte* target = nullptr;      // device address inside a PinnedBuffer of this device
  std::uint64_t target_bytes = 0;   // poll reads the first 8-aligned word of it
  double rate_gbs = 0;              // target rate, 10^9 B/s; 0: as fast as it goes
  std::uint64_t epoch = 0;          // > 0 and growing over the engine's life
  double timeout_s = 30;            // the load gives up this long after the host last kept it alive
  std::vector<int> helper_cpus;     // where the engine's host threads run (OS indexes); empty: anywhere
};

// What moves a load's bytes: the device's threads, its copy engine, or the
// host backend's threads (named in records by kLoadEngineKindNames).
enum class LoadEngineKind { kernel, copy_engine, host_threads };

// How a kind runs on this engine.
struct LoadShape {
  LoadEngineKind engine = LoadEngineKind::kernel;
  int blocks = 0, threads_per_block = 0;
  long long workers = 0;          // units that move data (warps, threads, 1 copy stream)
  std::uint64_t chunk_bytes = 0;  // a worker's bytes between progress updates (copies: one copy)
};

// A load's own traffic besides its named kind: each progress stamp is a
// 16-byte ring entry and an 8-byte counter written into pinned host memory,
// each control read 8 bytes read from it.
inline constexpr std::uint64_t kStampBytes = 16 + 8, kControlReadBytes = 8;

struct LoadOutcome {
  bool timed_out = false;
  std::uint64_t bytes = 0;                                              // moved in all (poll: 8 per thread-poll)
  std::uint64_t t_start_ticks = 0, t_ready_ticks = 0, t_end_ticks = 0;  // device timer
  std::uint64_t workers_started = 0;
  std::uint64_t stamps = 0;  // progress stamps written
  // The reporter's reads of the host's flags (stop, alive): 8 B each over the
  // link; 0 where the host reads them itself (the copy engine's feeder).
  std::uint64_t control_reads = 0;
};

class LoadEngine {
 public:
  virtual ~LoadEngine();
  virtual LoadShape shape(LoadKind kind, Access access, std::uint64_t target_bytes) const = 0;
  // Starts the task and returns once it is launched; one task at a time.
  // Throws a usage Error for a kind this engine cannot run, or a target that
  // is not in its device's pinned memory.
  virtual void start(const LoadTask& task) = 0;
  // Blocks until the running task is ready (moving data); throws a timeout
  // Error after `timeout_s`.
  void wait_ready(double timeout_s);
  // Asks the running task to stop; it ends within a chunk.
  void request_stop();
  // Tells the running task the host is still there: a task gives up
  // `timeout_s` after the last of these (or its start), never sooner.
  void keep_alive();
  // Waits for the task to end (it stops by itself after its timeout) and
  // returns what it did.
  virtual LoadOutcome join() = 0;
  // Device time, in seconds, of one plain pass of `kind` over `bytes` at
  // device address `target` (page-aligned pinned memory): the reference rates.
  // write, read: a non-persistent, maximally parallel kernel (one 8-byte word
  // per thread written, one 16-byte unit per thread read); copy_d2h, copy_h2d:
  // one async copy between device memory and the target. Throws a usage Error
  // for poll and none, which have no plain pass.
  virtual double time_plain(LoadKind kind, std::byte* target, std::uint64_t bytes) = 0;
  // Bytes the last joined task moved between two device-timer readings,
  // interpolated linearly between its stamps; nullopt when the stamps do not
  // cover the interval.
  std::optional<double> bytes_between(std::uint64_t from_ticks, std::uint64_t to_ticks) const;
  // The rate of the last joined task `o`, GB/s: the bytes its stamps show from
  // ready to end (all it moved, where they do not cover that) over that device
  // time; 0 when no time passed.
  double rate_gbs(const LoadOutcome& o) const;
  std::uint64_t active_epoch() const { return epoch_; }

 protected:
  // The backend hands over pinned memory for the control block and the ring.
  LoadEngine(const Device& device, PinnedBuffer control_and_ring);
  static std::size_t control_and_ring_bytes();
  LoadControl* control_host() const { return control_; }
  const LoadStamp* ring_host() const { return ring_; }
  LoadStamp* ring_host_mutable() { return ring_; }  // for engines that stamp from the host
  LoadControl* control_device() const;
  LoadStamp* ring_device() const;
  std::uint64_t ring_mask() const { return ring_mask_; }
  // Polled while waiting for ready: throws if the running task has failed.
  virtual void check_alive() {}
  // Called by start(): checks and records the epoch, clears the stop flag's reach.
  void begin(const LoadTask& task);
  // Called by join() after the backend's wait: the result of the active epoch.
  LoadOutcome finish();
  // The protocol's arguments for a thread task of `shape` (see load_protocol.hpp).
  LoadArgs protocol_args(const LoadTask& task, const LoadShape& shape, LoadShared* shared,
                         std::byte* copy_source) const;
  const Device& device_;

 private:
  PinnedBuffer memory_;
  LoadControl* control_ = nullptr;
  LoadStamp* ring_ = nullptr;
  std::uint64_t ring_mask_ = 0;
  std::uint64_t epoch_ = 0;
  std::uint64_t stamps_ = 0;  // of the last joined task
  double timeout_s_ = 30;
};

// Runs `task` alone for about `seconds` and returns its rate, GB/s: the bytes
// its stamps show from ready to end over that time, on the device timer.
double run_for_rate_gbs(LoadEngine& engine, const LoadTask& task, double seconds);

}  // namespace hetprobe
