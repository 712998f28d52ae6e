// GPU backend, compiled twice from this one source: by nvcc as the cuda
// backend and by hipcc as the hip backend. Vendor names come only from
// portability.hpp (HP_RT, gpu::, HETPROBE_BACKEND_*). This file opens the
// device (info, memory, timer); gpu_*_engine.hpp are its engines.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/errors.hpp"
#include "probes/backends/gpu/gpu_copy_engine.hpp"
#include "probes/backends/gpu/gpu_halo_engine.hpp"
#include "probes/backends/gpu/gpu_kernels.hpp"
#include "probes/backends/gpu/gpu_launch_engine.hpp"
#include "probes/backends/gpu/gpu_load_engine.hpp"
#include "probes/backends/gpu/gpu_signal_engine.hpp"
#include "probes/backends/gpu/gpu_writer_engine.hpp"
#include "probes/device/device.hpp"
#include "probes/device/device_names.hpp"

namespace hetprobe::HETPROBE_BACKEND_NS {

namespace {

double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The device timer's rate against the host's steady clock, from two stamps
// 200 ms apart; the error is the two brackets' widths (tens of microseconds)
// over the span: ~1e-4. Each stamp is one timer read by a kernel, bracketed
// by host clock reads; the tightest bracket of several is kept, since a
// preempted or slow launch would move the midpoint by its whole delay.
double measure_timer_hz(int ordinal) {
  HP_CHECK(HP_RT(SetDevice)(ordinal));
  gpu::Stream stream{};
  HP_CHECK(HP_RT(StreamCreateWithFlags)(&stream, HP_RT(StreamNonBlocking)));
  unsigned long long* word = nullptr;
  HP_CHECK(gpu::host_alloc(reinterpret_cast<void**>(&word), sizeof *word));
  unsigned long long* word_dev = nullptr;
  HP_CHECK(HP_RT(HostGetDevicePointer)(reinterpret_cast<void**>(&word_dev), word, 0));
  struct Stamp {
    double host_mid, host_width;
    unsigned long long device;
  };
  auto stamp = [&] {
    const double h0 = host_seconds();
    read_timer_kernel<<<1, 1, 0, stream>>>(word_dev);
    HP_CHECK(HP_RT(GetLastError)());
    HP_CHECK(HP_RT(StreamSynchronize)(stream));
    const double h1 = host_seconds();
    return Stamp{(h0 + h1) / 2, h1 - h0, *static_cast<volatile unsigned long long*>(word)};
  };
  auto best_stamp = [&] {
    Stamp best = stamp();
    for (int i = 0; i < 8; ++i) {
      const Stamp s = stamp();
      if (s.host_width < best.host_width) best = s;
    }
    return best;
  };
  stamp();  // the first launch loads the module
  const Stamp a = best_stamp();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const Stamp b = best_stamp();
  (void)HP_RT(StreamDestroy)(stream);
  (void)gpu::host_free(word);
  return static_cast<double>(b.device - a.device) / (b.host_mid - a.host_mid);
}

class GpuDevice final : public Device {
 public:
  explicit GpuDevice(int ordinal) : ordinal_(ordinal) {
    HP_CHECK(HP_RT(SetDevice)(ordinal));
    gpu::DeviceProp prop{};
    HP_CHECK(HP_RT(GetDeviceProperties)(&prop, ordinal));
    info_.backend = HETPROBE_BACKEND_NAME;
    info_.ordinal = ordinal;
    info_.name = prop.name;
    char bus[64] = {};
    HP_CHECK(HP_RT(DeviceGetPCIBusId)(bus, sizeof bus, ordinal));
    info_.pci_bus_id = bus;
    int driver = 0, runtime = 0;
    HP_CHECK(HP_RT(DriverGetVersion)(&driver));
    HP_CHECK(HP_RT(RuntimeGetVersion)(&runtime));
    info_.driver_version = gpu::format_version(driver);
    info_.runtime_version = gpu::format_version(runtime);
    info_.multiprocessors = prop.multiProcessorCount;
    info_.max_threads_per_block = prop.maxThreadsPerBlock;
    info_.warp_size = prop.warpSize;
    info_.managed_concurrent = prop.concurrentManagedAccess != 0;
    info_.timer_counts_ns = gpu::kTimerCountsNs;
    info_.cooperative_launch = prop.cooperativeLaunch != 0;
    info_.host_coherence_kinds = gpu::kHasHostCoherenceFlags;
    info_.flag_placements = {FlagPlacement::pinned, FlagPlacement::device};
    if (info_.managed_concurrent) info_.flag_placements.push_back(FlagPlacement::managed);
    info_.launch_mechanisms = kLaunchMechanismNames.all();
    info_.copy_engine = true;
    preload_kernels();
    const TimerCalibration timer = calibrate_timer_once(info_.backend, ordinal, [this] {
      info_.timer_hz = measure_timer_hz(ordinal_);
      auto engine = make_signal_engine();
      return TimerCalibration{info_.timer_hz, measure_timer_tick_ns(*engine, info_.timer_hz)};
    });
    info_.timer_hz = timer.hz;
    info_.timer_tick_ns = timer.tick_ns;
  }

  const DeviceInfo& info() const override { return info_; }

  PinnedBuffer alloc_pinned(std::size_t bytes) override {
    check_pinnable(bytes);
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    void* host = nullptr;
    const gpu::Error e = gpu::host_alloc(&host, bytes);
    if (e != gpu::kSuccess) {
      (void)HP_RT(GetLastError)();
      throw usage_error("cannot pin " + std::to_string(bytes) + " bytes of host memory for " + info_.name + ": " +
                        gpu::error_name(e));
    }
    void* dev = nullptr;
    HP_CHECK(HP_RT(HostGetDevicePointer)(&dev, host, 0));
    return PinnedBuffer(static_cast<std::byte*>(host), static_cast<std::byte*>(dev), bytes,
                        [](std::byte* p) { (void)gpu::host_free(p); });
  }

  PinnedBuffer alloc_flags(FlagPlacement placement, HostCoherence coherence, std::size_t bytes) override {
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    if (placement == FlagPlacement::pinned && coherence == HostCoherence::default_kind) return alloc_pinned(bytes);
    if (coherence != HostCoherence::default_kind) {
      if (placement != FlagPlacement::pinned)
        throw unsupported("host coherence options apply to pinned host memory only");
      if (!gpu::kHasHostCoherenceFlags)
        throw unsupported(std::string(to_string(coherence)) + " host memory is a HIP allocation option; the " +
                          info_.backend + " backend has none");
      void* host = nullptr;
      HP_CHECK(gpu::host_alloc_coherence(&host, bytes, coherence == HostCoherence::coherent));
      void* dev = nullptr;
      HP_CHECK(HP_RT(HostGetDevicePointer)(&dev, host, 0));
      return PinnedBuffer(static_cast<std::byte*>(host), static_cast<std::byte*>(dev), bytes,
                          [](std::byte* p) { (void)gpu::host_free(p); });
    }
    void* p = nullptr;
    if (placement == FlagPlacement::managed) {
      if (!info_.managed_concurrent)
        throw unsupported(info_.name +
                          " reports concurrentManagedAccess = 0: the host may not touch managed "
                          "memory while a kernel runs");
      HP_CHECK(HP_RT(MallocManaged)(&p, bytes, HP_RT(MemAttachGlobal)));
      std::memset(p, 0, bytes);
      return PinnedBuffer(static_cast<std::byte*>(p), static_cast<std::byte*>(p), bytes,
                          [](std::byte* q) { (void)HP_RT(Free)(q); });
    }
    HP_CHECK(HP_RT(Malloc)(&p, bytes));
    HP_CHECK(HP_RT(Memset)(p, 0, bytes));
    return PinnedBuffer(nullptr, static_cast<std::byte*>(p), bytes, [](std::byte* q) { (void)HP_RT(Free)(q); });
  }

  std::unique_ptr<WriterEngine> make_writer_engine() override { return std::make_unique<GpuWriterEngine>(*this); }
  std::unique_ptr<SignalEngine> make_signal_engine() override {
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    return std::make_unique<GpuSignalEngine>(*this, new_pinned_result());
  }
  std::unique_ptr<HaloEngine> make_halo_engine() override { return std::make_unique<GpuHaloEngine>(*this); }
  std::unique_ptr<CopyEngine> make_copy_engine() override { return std::make_unique<GpuCopyEngine>(ordinal_); }
  std::unique_ptr<LoadEngine> make_load_engine() override { return std::make_unique<GpuLoadEngine>(*this, ordinal_); }
  std::unique_ptr<LaunchEngine> make_launch_engine() override { return std::make_unique<GpuLaunchEngine>(*this); }

 private:
  // With lazy loading (CUDA's default since 12.2) a kernel's first launch may
  // wait for the device to be idle, so a kernel launched beside a spinning one
  // (notify-stream's pack beside its unpack; a signal beside a writer) would
  // never start: both would wait until their timeout. Asking for a kernel's
  // attributes loads it, so every kernel that runs beside another is loaded here.
  static void preload_kernels() {
    const void* kernels[] = {reinterpret_cast<const void*>(halo_pack_kernel),
                             reinterpret_cast<const void*>(halo_unpack_kernel),
                             reinterpret_cast<const void*>(halo_stacked_kernel),
                             reinterpret_cast<const void*>(signal_kernel),
                             reinterpret_cast<const void*>(read_timer_kernel),
                             reinterpret_cast<const void*>(writer_stream_kernel),
                             reinterpret_cast<const void*>(writer_stacked_kernel),
                             reinterpret_cast<const void*>(load_kernel),
                             reinterpret_cast<const void*>(load_stamp_kernel)};
    for (const void* k : kernels) {
      gpu::FuncAttributes attr{};
      HP_CHECK(HP_RT(FuncGetAttributes)(&attr, k));
    }
  }

  int ordinal_;
  DeviceInfo info_;
};

// Why the runtime finds no device. No driver, or a driver but no device, is
// simply a machine without this GPU: said plainly, as `absent`. A driver too
// old for this build's runtime, or any other error, is a fault to fix, and
// keeps the runtime's own words.
DeviceCount no_devices(gpu::Error e) {
  if (e == gpu::kNoDevice) return {0, "no " HETPROBE_RUNTIME_NAME " device", true};
  if (e == gpu::kInsufficientDriver) {
    int driver = 0, runtime = 0;  // the driver's version is 0 where none is installed
    (void)HP_RT(DriverGetVersion)(&driver);
    (void)HP_RT(RuntimeGetVersion)(&runtime);
    if (driver == 0) return {0, "no " HETPROBE_RUNTIME_NAME " driver", true};
    return {0, "the " HETPROBE_RUNTIME_NAME " driver (for " HETPROBE_RUNTIME_NAME " " + gpu::format_version(driver) +
                   ") is older than this build's runtime (" + gpu::format_version(runtime) + "): update the driver"};
  }
  return {0, std::string(gpu::error_name(e)) + ": " + gpu::error_text(e)};
}

// Streams share the device's hardware queues round-robin (8 by default on
// CUDA), and work behind a kernel in the same queue waits for that kernel to
// end. The notify variants' persistent kernels spin until copies on other
// streams have run: sharing a queue with one of them, a copy never starts
// (notify-stream with memcpy staging hung on its first iteration, two H100s,
// 2026-11-28). With as many queues as the process has streams, none shares.
// Read once, when the runtime starts: before the first call into it; a value
// the user set wins.
void claim_hardware_queues() { (void)setenv(gpu::kHardwareQueuesVariable, gpu::kHardwareQueues, 0); }

}  // namespace

BackendEntry entry() {
  return {HETPROBE_BACKEND_NAME,
          []() -> DeviceCount {
            claim_hardware_queues();
            int n = 0;
            const gpu::Error e = HP_RT(GetDeviceCount)(&n);
            if (e == gpu::kSuccess) return n > 0 ? DeviceCount{n} : no_devices(gpu::kNoDevice);
            (void)HP_RT(GetLastError)();
            return no_devices(e);
          },
          [](int ordinal) -> std::unique_ptr<Device> { return std::make_unique<GpuDevice>(ordinal); },
          [](int ordinal) {
            char bus[64] = {};
            HP_CHECK(HP_RT(DeviceGetPCIBusId)(bus, sizeof bus, ordinal));
            return std::string(bus);
          }};
}

}  // namespace hetprobe::HETPROBE_BACKEND_NS
