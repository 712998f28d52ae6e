// The Device interface: what a probe needs from a GPU (or from CPU threads
// playing one). Backends: host (always built), cuda, hip. A probe never names
// a backend; it gets a Device from open_device(), asks DeviceInfo what it can
// do, and runs its work on the engines the Device makes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace hetprobe {

// The engines (probes/<protocol>/<protocol>_engine.hpp).
class WriterEngine;
class SignalEngine;
class HaloEngine;
class CopyEngine;
class LoadEngine;
class LaunchEngine;

// Where a flag lives. device: device memory, which the host cannot load or
// store (host() of its buffer is null); only copies and stream operations reach it.
enum class FlagPlacement { pinned, managed, device };
// Host allocation flags that matter on AMD (thesis 003 Sec. 3.2.1): fine-grained
// coherent or coarse-grained non-coherent pinned memory. Only the hip backend has them.
enum class HostCoherence { default_kind, coherent, noncoherent };
const char* to_string(FlagPlacement placement);
const char* to_string(HostCoherence coherence);

// Signalling that needs the backend's runtime (launch_engine.hpp): a kernel
// launch as the "go", or a runtime call (synchronise, event, host callback,
// stream memory operation, copy) on one leg.
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

struct DeviceInfo {
  std::string backend;          // "host", "cuda" or "hip": for records and messages, never for decisions
  int ordinal = 0;              // index in the backend's runtime
  std::string name;             // e.g. "NVIDIA H200"; the CPU model for host
  std::string pci_bus_id;       // e.g. "0000:00:06.0"; empty for host
  std::string driver_version;   // e.g. "13.0"; the kernel release for host
  std::string runtime_version;  // e.g. "13.0"; the C++ library for host
  int multiprocessors = 0;      // SMs / CUs; hardware threads for host
  int max_threads_per_block = 0;
  int warp_size = 0;
  double timer_hz = 0;              // rate of the device timer, measured once per process
  double timer_tick_ns = 0;         // smallest step the device timer makes, measured once per process
  bool managed_concurrent = false;  // host may touch managed memory while a kernel runs
  bool page_locked = true;          // false if the host backend could not mlock

  // What the device can do: probes ask these, never the backend's name.
  bool timer_counts_ns = false;                // the timer's nominal unit is 1 ns (CUDA globaltimer, host steady_clock)
  bool cooperative_launch = false;             // a grid-synchronised launch of every co-resident block (stacked)
  bool host_coherence_kinds = false;           // pinned host memory comes coherent or noncoherent (HostCoherence)
  std::vector<FlagPlacement> flag_placements;  // where alloc_flags can put a flag
  std::vector<LaunchMechanism> launch_mechanisms;  // what make_launch_engine's engine can time; none on host
  bool copy_engine = false;                        // copies run on a DMA engine beside kernels
  // 1 for a real device. Above 1: a host backend device whose engines are made
  // this many times slower on purpose (HETPROBE_HOST_SLOW, a test option), so
  // a comparison of devices has an outlier; written into the results header.
  double simulated_slowdown = 1;

  bool has_flag_placement(FlagPlacement p) const;
};

// How many device threads write: stream = one block of max threads,
// stacked = every co-resident block of max threads, grid-synchronised.
enum class Access { stream, stacked };
const char* to_string(Access access);

// Launch shape of a kernel (or of the host threads playing one).
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

// A device: what it is, its memory and its timer. The work runs on engines,
// one per device-side protocol (probes/<protocol>/), which the probe that
// makes one owns and destroys before the device. Each backend implements
// every engine; an engine makes its streams and flags when it is made.
class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;

  // Throws a usage Error if the memory cannot be pinned.
  virtual PinnedBuffer alloc_pinned(std::size_t bytes) = 0;
  // Flag memory (see FlagPlacement, HostCoherence). Throws an unsupported
  // Error when this device has no such memory (info().flag_placements).
  virtual PinnedBuffer alloc_flags(FlagPlacement placement, HostCoherence coherence, std::size_t bytes);
  // Device memory (the halo regions unpack writes into). On GPU backends
  // host() is null; the host backend's "device memory" is its own memory.
  virtual PinnedBuffer alloc_device(std::size_t bytes);

  virtual std::unique_ptr<WriterEngine> make_writer_engine() = 0;  // writer_engine.hpp
  virtual std::unique_ptr<SignalEngine> make_signal_engine() = 0;  // signal_engine.hpp
  virtual std::unique_ptr<HaloEngine> make_halo_engine() = 0;      // halo_engine.hpp
  virtual std::unique_ptr<CopyEngine> make_copy_engine() = 0;      // copy_engine.hpp
  virtual std::unique_ptr<LoadEngine> make_load_engine() = 0;      // load_engine.hpp
  // launch_engine.hpp; throws an unsupported Error where info().launch_mechanisms is empty.
  virtual std::unique_ptr<LaunchEngine> make_launch_engine();
};

// The device timer's rate and smallest step.
struct TimerCalibration {
  double hz = 0, tick_ns = 0;
};
// `measure()` the first time a process asks for this backend's device
// `ordinal`, the cached result after that: a calibration takes ~200 ms on a GPU.
TimerCalibration calibrate_timer_once(const std::string& backend, int ordinal,
                                      const std::function<TimerCalibration()>& measure);

// A backend's devices on this node and, when it has none, why not. `absent`
// marks the plain "no GPU here" (no driver, no device), which --device auto
// states as such; any other reason is a fault, named with the runtime's error.
struct DeviceCount {
  int devices = 0;
  std::string why_none = {};  // "" when devices > 0
  bool absent = false;
};

// Backends compiled into this binary, and how to open one.
struct BackendEntry {
  std::string name;  // "host", "cuda", "hip"
  std::function<DeviceCount()> count;
  std::function<std::unique_ptr<Device>(int ordinal)> open;
  // PCI bus id of a device without opening it; "" for the host backend.
  std::function<std::string(int ordinal)> pci_bus_id;
};
const std::vector<BackendEntry>& compiled_backends();
// Every backend hetprobe has, built into this binary or not (--device's
// names besides "auto"): a name outside it is unknown, one inside it but not
// compiled in is refused as "built without".
inline constexpr const char* kBackendNames[] = {"host", "cuda", "hip"};

// `backend` is auto|cuda|hip|host. auto takes the first GPU backend with a
// device, else host; `chosen_because` says why. Throws a usage Error when the
// named backend is not compiled in or has no device with this ordinal.
std::unique_ptr<Device> open_device(const std::string& backend, int ordinal, std::string* chosen_because = nullptr);
// Devices of a compiled-in backend on this node (0 when it has none or is not compiled in).
int device_count(const std::string& backend);

// Host memory now: installed, and available (MemAvailable, or less where a
// memory cgroup of this process, v2 or v1, allows less: its limit less its
// use): what an allocation can take without the out-of-memory killer ending
// the run. The cgroup tree is read under HETPROBE_SYSFS_ROOT's fs/cgroup
// where that is set (a test's tree).
struct HostMemory {
  std::uint64_t installed = 0, available = 0;
  std::string limited_by_cgroup;  // the directory of the cgroup whose limit `available` is; "" when none
};
HostMemory host_memory();

// Throws a usage Error naming `what` (e.g. "--sizes 8GiB on 2 ranks of this
// node") when `bytes` is more than the host memory available now.
void check_memory_available(std::uint64_t bytes, const std::string& what);

// check_memory_available for one pinned allocation; backends call it before allocating.
void check_pinnable(std::size_t bytes);

}  // namespace hetprobe
