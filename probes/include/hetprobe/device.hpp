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

#include "hetprobe/writer_protocol.hpp"

namespace hetprobe {

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
  double timer_hz = 0;          // rate of the device timer, measured at open
  bool page_locked = true;      // false if the host backend could not mlock
};

// Launch shape of the writer for one access mode.
struct WriterShape {
  int blocks = 0;
  int threads_per_block = 0;
  long long threads() const { return static_cast<long long>(blocks) * threads_per_block; }
};

// Host memory the device can write: page-locked and mapped. Move-only.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(std::byte* host, std::byte* device, std::size_t bytes,
               std::function<void(std::byte*)> release);
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer();

  std::byte* host() const { return host_; }
  std::byte* device() const { return device_; }  // the same memory, as the device sees it
  std::size_t size() const { return bytes_; }
  // Device address of a host address inside this buffer.
  std::byte* device_at(const std::byte* host_address) const {
    return device_ + (host_address - host_);
  }

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

struct WriterOutcome {
  WriterStatus status = WriterStatus::ok;
  std::uint64_t passes = 0;  // completed post-ready passes
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

  // Device time, in seconds, of one plain (non-persistent, maximally parallel)
  // pass writing `bytes` at device address `dst`: the reference bandwidth.
  virtual double time_plain_write(std::byte* dst, std::uint64_t bytes) = 0;

 protected:
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
};
const std::vector<BackendEntry>& compiled_backends();

// `backend` is auto|cuda|hip|host. auto takes the first GPU backend with a
// device, else host; `chosen_because` says why. Throws a usage Error when the
// named backend is not compiled in or has no device with this ordinal.
std::unique_ptr<Device> open_device(const std::string& backend, int ordinal,
                                    std::string* chosen_because = nullptr);

// Throws a usage Error when `bytes` cannot possibly be pinned on this node
// (more than its physical memory); backends call it before allocating.
void check_pinnable(std::size_t bytes);

// For a SIGINT/SIGTERM handler: tells the running writer, if any, to stop
// (one atomic store to its flag block; async-signal-safe).
void stop_running_writer_from_signal();

}  // namespace hetprobe
