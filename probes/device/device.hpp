// The Device interface: what a probe needs from a GPU (or from CPU threads
// playing one). Backends: host (always built), cuda, hip. A probe never names
// a backend; it gets a Device from open_device() and talks to it through this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "probes/device/host_clock.hpp"
#include "probes/halo/halo_protocol.hpp"
#include "probes/load/load_protocol.hpp"
#include "probes/signal/signal_protocol.hpp"
#include "probes/writer/writer_protocol.hpp"

namespace hetprobe {

class LoadEngine;  // load_engine.hpp

// How many device threads write: stream = one block of max threads,
// stacked = every co-resident block of max threads, grid-synchronised.
enum class Access { stream, stacked };
const char* to_string(Access access);

struct DeviceInfo {
  std::string backend;          // "host", "cuda" or "hip"
  int ordinal = 0;              // index in the backend's runtime
  std::string name;             // e.g. "NVIDIA H200"; the CPU model for host
  std::string pci_bus_id;       // e.g. "0000:00:06.0"; empty for host
  std::string driver_version;   // e.g. "13.0"; the kernel release for host
  std::string runtime_version;  // e.g. "13.0"; the C++ library for host
  int multiprocessors = 0;      // SMs / CUs; hardware threads for host
  int max_threads_per_block = 0;
  int warp_size = 0;
  double timer_hz = 0;              // rate of the device timer, measured at open
  double timer_tick_ns = 0;         // smallest step the device timer makes, measured at open
  bool managed_concurrent = false;  // host may touch managed memory while a kernel runs
  bool page_locked = true;          // false if the host backend could not mlock
};

// Launch shape of the writer for one access mode.
struct WriterShape {
  int blocks = 0;
  int threads_per_block = 0;
  long long threads() const { return static_cast<long long>(blocks) * threads_per_block; }
};

// Host memory the device can write: page-locked and mapped (or, for flags,
// managed memory, or device memory with host() null). Move-only.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(std::byte* host, std::byte* device, std::size_t bytes, std::function<void(std::byte*)> release);
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer();

  std::byte* host() const { return host_; }
  std::byte* device() const { return device_; }  // the same memory, as the device sees it
  std::size_t size() const { return bytes_; }
  // Device address of a host address inside this buffer.
  std::byte* device_at(const std::byte* host_address) const { return device_ + (host_address - host_); }

 private:
  std::byte* host_ = nullptr;
  std::byte* device_ = nullptr;
  std::size_t bytes_ = 0;
  std::function<void(std::byte*)> release_;
};

// One writer run. Addresses are device addresses inside a PinnedBuffer.
struct WriterTask {
  Access access = Access::stream;
  std::byte* pre = nullptr;  // written once with the payload, then the ready flag
  std::uint64_t pre_bytes = 0;
  std::byte* post = nullptr;  // written pass after pass until stopped; null: end after ready
  std::uint64_t post_bytes = 0;
  std::uint64_t epoch = 0;  // > 0 and increasing over a Device's lifetime
  double timeout_s = 30;    // the writer gives up waiting for the stop flag after this
};

enum class WriterStatus { ok, timeout };

// Where a flag lives. device: device memory, which the host cannot load or
// store (host() of its buffer is null); only copies and stream operations reach it.
enum class FlagPlacement { pinned, managed, device };
// Host allocation flags that matter on AMD (thesis 003 Sec. 3.2.1): fine-grained
// coherent or coarse-grained non-coherent pinned memory. Only the hip backend has them.
enum class HostCoherence { default_kind, coherent, noncoherent };
const char* to_string(MemoryOrder order);
const char* to_string(FlagPlacement placement);
const char* to_string(HostCoherence coherence);

// One task for the device's signal thread (see signal_protocol.hpp).
// Addresses are device addresses; result and timeout are filled in by the Device.
struct SignalTask {
  SignalKind kind = SignalKind::echo;
  MemoryOrder order = MemoryOrder::volatile_access;
  unsigned long long* to_device = nullptr;
  unsigned long long* to_host = nullptr;
  unsigned long long* stop = nullptr;
  unsigned long long* samples = nullptr;
  std::uint64_t count = 0;
  std::uint64_t first = 1;
  double timeout_s = 30;
};

struct SignalOutcome {
  bool timed_out = false;
  std::uint64_t completed = 0;
  std::uint64_t t_start_ticks = 0, t_end_ticks = 0;
  std::uint64_t value = 0;
};

// Signalling that needs the backend's runtime: a kernel launch as the "go",
// or a runtime call (synchronise, event, host callback, stream memory
// operation, copy) on one leg. The pure flag mechanisms need only
// alloc_flags() and signal tasks; the notify probe runs those.
enum class LaunchMechanism {
  launch_flag,                // go: launch; done: the kernel stores a pinned flag
  launch_device_sync,         // go: launch of an empty kernel; done: device synchronise returns
  launch_event_query,         // go: launch; done: an event recorded after it, polled with query
  launch_event_sync,          // go: launch; done: event synchronise on that event
  launch_host_callback,       // go: launch; done: a host function enqueued after it has run
  launch_stream_write_value,  // go: launch; done: a stream write-value to a pinned flag
  device_flag_memcpy,         // go: an async copy into a device-memory flag a kernel polls
  stream_wait_value,          // go: a pinned flag a stream wait-value op waits on, before a kernel
};
const char* to_string(LaunchMechanism m);

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

// The halo-exchange proxy's device work (halo_protocol.hpp): pack or unpack
// with one team (GPU block, host thread) per message, or both in one stacked
// launch (every co-resident block, grid-synchronised; halo_stacked).
enum class HaloStage { pack, unpack, stacked };
struct HaloLaunch {
  HaloStage stage = HaloStage::pack;
  HaloArgs args{};              // pack or unpack (stacked: the pack); device addresses;
                                // timeout_ticks is set by the Device from timeout_s
  HaloArgs unpack{};            // stacked only: the unpack
  double timeout_s = 30;        // an unpack gives up waiting for its flag after this
  double poll_pause_ns = 0;     // GPU: pause between two reads of an unpack-ready flag
  int threads_per_block = 128;  // GPU block size (clamped to the device's maximum)
};

struct WriterOutcome {
  WriterStatus status = WriterStatus::ok;
  std::uint64_t passes = 0;                                             // completed post-ready passes
  std::uint64_t t_start_ticks = 0, t_ready_ticks = 0, t_end_ticks = 0;  // device timer
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;
  virtual WriterShape writer_shape(Access access) const = 0;
  // Throws a usage Error if the memory cannot be pinned.
  virtual PinnedBuffer alloc_pinned(std::size_t bytes) = 0;

  // Starts a writer and returns once it is launched. One writer at a time.
  void start_writer(const WriterTask& task);
  // Waits (bounded by the task's timeout) for the writer to end and returns
  // what it did. A writer with a post phase ends only after request_stop().
  WriterOutcome join_writer();

  // Blocks until the writer has set the ready flag for `epoch`; throws a
  // timeout Error after `timeout_s` or a device Error if the writer failed.
  void wait_ready(std::uint64_t epoch, double timeout_s);
  // Post-ready passes the running writer has completed (a cheap host load).
  std::uint64_t passes_completed() const;
  // Asks the writer of `epoch` to stop after its current pass.
  void request_stop(std::uint64_t epoch);

  // Device time, in seconds, of one plain pass of a load kind over `bytes` at
  // device address `target` (page-aligned pinned memory): the reference rates.
  // write, read: a non-persistent, maximally parallel kernel (one 8-byte word
  // per thread written, one 16-byte unit per thread read); copy_d2h, copy_h2d:
  // one async copy between device memory and the target. Throws a usage Error
  // for poll and none, which have no plain pass.
  virtual double time_plain(LoadKind kind, std::byte* target, std::uint64_t bytes) = 0;

  // Flag memory (see FlagPlacement, HostCoherence). Throws an unsupported
  // Error when this backend or device has no such memory.
  virtual PinnedBuffer alloc_flags(FlagPlacement placement, HostCoherence coherence, std::size_t bytes);

  // Device memory (the halo regions unpack writes into). On GPU backends
  // host() is null; the host backend's "device memory" is its own memory.
  virtual PinnedBuffer alloc_device(std::size_t bytes);

  // Runs a signal task on one device thread and returns once it is launched.
  // One signal task at a time; it may run beside a writer.
  void start_signal(const SignalTask& task);
  // Waits for the signal task to end (it gives up by itself after its
  // timeout) and returns what it did.
  SignalOutcome join_signal();

  // Host-timed samples of one launch mechanism; on the host backend and where
  // a runtime lacks the call, `skipped` says why.
  virtual MechanismSamples time_launch_mechanism(LaunchMechanism mechanism, const MechanismRun& run);

  // Starts a halo stage and returns at once, with the shape it was launched
  // with. Pack and unpack have their own stream (threads), so one of each
  // can run at the same time; stacked runs alone.
  virtual WriterShape start_halo(const HaloLaunch& launch) = 0;
  // Waits until the stage has ended; its waits give up by themselves after
  // the launch's timeout (the stamps say so), so this returns.
  virtual void join_halo(HaloStage stage) = 0;

  // Copies `bytes` of device memory to host memory (a PinnedBuffer's host
  // side) on copy lane `lane` and returns at once; lanes are independent
  // streams, made as needed. copy_done() asks, without waiting, whether the
  // lane's copies have ended. The host backend copies at once.
  virtual void start_copy_to_host(int lane, std::byte* host_dst, const std::byte* device_src, std::size_t bytes) = 0;
  virtual bool copy_done(int lane) = 0;

  // A new load engine of this device (load_engine.hpp): traffic in pinned host
  // memory of every load kind. The caller owns it and destroys it before the device.
  virtual std::unique_ptr<LoadEngine> make_load_engine() = 0;

 protected:
  // Set by the backend: where signal tasks put their result, as host and device see it.
  SignalResult* signal_result_ = nullptr;
  SignalResult* signal_result_dev_ = nullptr;
  // Backend part of start_signal(): run args on one device thread.
  virtual void launch_signal(const SignalArgs& args) = 0;
  // Backend part of join_signal().
  virtual void wait_signal_exit() = 0;
  // The smallest step of the device timer, in ns, measured with a tick task;
  // backends call it at open, after info().timer_hz is set.
  double measure_timer_tick_ns();

  // Set by the backend: the flag block in pinned memory, as the host sees it.
  WriterControl* control_ = nullptr;
  std::uint64_t active_epoch_ = 0;
  double active_timeout_s_ = 0;
  // Backend part of start_writer(): launch the writer's threads or kernel.
  virtual void launch_writer(const WriterTask& task) = 0;
  // Backend part of join_writer(): wait for the writer's threads or kernel.
  virtual void wait_writer_exit() = 0;
  // Backend check while polling: throws if the writer failed to run.
  virtual void check_writer_alive() {}
};

// Backends compiled into this binary, and how to open one.
struct BackendEntry {
  std::string name;  // "host", "cuda", "hip"
  // Number of devices; 0 with `why_none` set when none can be used.
  std::function<int(std::string& why_none)> count;
  std::function<std::unique_ptr<Device>(int ordinal)> open;
  // PCI bus id of a device without opening it; "" for the host backend.
  std::function<std::string(int ordinal)> pci_bus_id;
};
const std::vector<BackendEntry>& compiled_backends();

// `backend` is auto|cuda|hip|host. auto takes the first GPU backend with a
// device, else host; `chosen_because` says why. Throws a usage Error when the
// named backend is not compiled in or has no device with this ordinal.
std::unique_ptr<Device> open_device(const std::string& backend, int ordinal, std::string* chosen_because = nullptr);
// Devices of a compiled-in backend on this node (0 when it has none or is not compiled in).
int device_count(const std::string& backend);

// Host memory now: installed, and available (MemAvailable, or less under a
// cgroup v2 memory limit): what an allocation can take without the
// out-of-memory killer ending the run.
struct HostMemory {
  std::uint64_t installed = 0, available = 0;
  bool cgroup_limited = false;  // `available` is the cgroup's limit less its use
};
HostMemory host_memory();

// Throws a usage Error naming `what` (e.g. "--sizes 8GiB on 2 ranks of this
// node") when `bytes` is more than the host memory available now.
void check_memory_available(std::uint64_t bytes, const std::string& what);

// check_memory_available for one pinned allocation; backends call it before allocating.
void check_pinnable(std::size_t bytes);

// For a SIGINT/SIGTERM handler: tells the running writer, if any, to stop
// (one atomic store to its flag block; async-signal-safe).
void stop_running_writer_from_signal();

}  // namespace hetprobe
