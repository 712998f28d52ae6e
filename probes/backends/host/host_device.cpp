// Host backend: CPU threads play the device, running the same protocol code
// as the GPU kernels (host_*_engine.cpp). This file opens the "device": its
// info, its memory and its engines.
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "base/cpu_name.hpp"
#include "base/echo_text.hpp"
#include "base/errors.hpp"
#include "probes/backends/host/host_engines.hpp"

namespace hetprobe::host_backend {

namespace {

constexpr std::size_t kAlign = 4096;

std::byte* alloc_locked(std::size_t bytes, bool& locked) {
  const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, rounded);
  if (p == nullptr) return nullptr;
  std::memset(p, 0, rounded);  // touch every page so it is really there
  locked = mlock(p, rounded) == 0;
  return static_cast<std::byte*>(p);
}

// HETPROBE_HOST_DEVICES=N (a test option, default 1): the host backend
// presents N devices, so multi-GPU paths run without a GPU. Bad text gives no
// device, and `why_none` names the variable and its range (open_device makes
// that a usage error).
DeviceCount host_device_count() {
  const char* text = std::getenv("HETPROBE_HOST_DEVICES");
  if (text == nullptr || *text == '\0') return {1};
  long n = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, n);
  if (ec != std::errc() || ptr != end || n < 1 || n > 64)
    return {0, "HETPROBE_HOST_DEVICES=" + echo_text(text) +
                   " is not a count from 1 to 64 (how many devices the host backend presents; unset: 1)"};
  return {static_cast<int>(n)};
}

// HETPROBE_HOST_SLOW=ORDINAL:FACTOR (a test option): host device ORDINAL's
// signal, writer and load engines run FACTOR times slower (WorkStretch), so a
// comparison of devices has an outlier to flag. The factor of device
// `ordinal` (1 when not slowed); a usage Error for bad text.
double host_slowdown(int ordinal, int devices) {
  const char* text = std::getenv("HETPROBE_HOST_SLOW");
  if (text == nullptr || *text == '\0') return 1;
  const std::string given = std::string("HETPROBE_HOST_SLOW=") + text;
  char* end = nullptr;
  const long slowed = std::strtol(text, &end, 10);
  double factor = 0;
  if (end != text && *end == ':') {
    const char* number = end + 1;
    factor = std::strtod(number, &end);
    if (end == number || *end != '\0') factor = 0;
  }
  if (!(std::isfinite(factor) && factor > 1 && factor <= 100) || slowed < 0 || slowed > 64)
    throw usage_error(given +
                      " is not ORDINAL:FACTOR (a host device and how many times slower it runs, above 1 "
                      "and at most 100; e.g. 1:2)");
  if (slowed >= devices)
    throw usage_error(given + ": the host backend has devices 0 to " + std::to_string(devices - 1) +
                      " (HETPROBE_HOST_DEVICES)");
  return slowed == ordinal ? factor : 1;
}

// No copy engine here: the copy happens in the call.
class HostCopyEngine final : public CopyEngine {
 public:
  void start_to_host(int, std::byte* host_dst, const std::byte* device_src, std::size_t bytes) override {
    std::memcpy(host_dst, device_src, bytes);
  }
  void start_to_device(int, std::byte* device_dst, const std::byte* host_src, std::size_t bytes) override {
    std::memcpy(device_dst, host_src, bytes);
  }
  void start_within_device(int, std::byte* device_dst, const std::byte* device_src, std::size_t bytes) override {
    std::memcpy(device_dst, device_src, bytes);
  }
  bool done(int) override { return true; }
};

class HostDevice final : public Device {
 public:
  explicit HostDevice(int ordinal) {
    info_.backend = "host";
    info_.ordinal = ordinal;
    info_.name = host_cpu_name();  // the CPU plays the device
    utsname u{};
    if (uname(&u) == 0) info_.driver_version = std::string(u.sysname) + " " + u.release;
    info_.runtime_version = "libstdc++ " + std::to_string(__GLIBCXX__);
    info_.multiprocessors = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    info_.max_threads_per_block = 1;
    info_.warp_size = 1;
    info_.timer_counts_ns = true;     // steady_clock counts nanoseconds
    info_.cooperative_launch = true;  // stacked: threads meeting at a barrier
    info_.flag_placements = {FlagPlacement::pinned};
    info_.simulated_slowdown = host_slowdown(ordinal, host_device_count().devices);
    if (info_.simulated_slowdown != 1) {
      char suffix[64];
      std::snprintf(suffix, sizeof suffix, " (slowed x%g by HETPROBE_HOST_SLOW)", info_.simulated_slowdown);
      info_.name += suffix;
    }
    info_.timer_hz = 1e9;
    info_.timer_tick_ns = calibrate_timer_once(info_.backend, ordinal, [this] {
                            auto engine = make_signal_engine();
                            return TimerCalibration{1e9, measure_timer_tick_ns(*engine, 1e9)};
                          }).tick_ns;
  }

  const DeviceInfo& info() const override { return info_; }

  PinnedBuffer alloc_pinned(std::size_t bytes) override {
    check_pinnable(bytes);
    bool locked = false;
    std::byte* p = alloc_locked(bytes, locked);
    if (p == nullptr) throw usage_error("cannot allocate " + std::to_string(bytes) + " bytes of host memory");
    if (!locked) info_.page_locked = false;
    const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
    return PinnedBuffer(p, p, bytes, [rounded, locked](std::byte* q) {
      if (locked) munlock(q, rounded);
      std::free(q);
    });
  }

  PinnedBuffer alloc_device(std::size_t bytes) override { return alloc_pinned(bytes); }

  std::unique_ptr<WriterEngine> make_writer_engine() override { return host_backend::make_writer_engine(*this); }
  std::unique_ptr<SignalEngine> make_signal_engine() override { return host_backend::make_signal_engine(*this); }
  std::unique_ptr<HaloEngine> make_halo_engine() override { return host_backend::make_halo_engine(*this); }
  std::unique_ptr<CopyEngine> make_copy_engine() override { return std::make_unique<HostCopyEngine>(); }
  std::unique_ptr<LoadEngine> make_load_engine() override { return host_backend::make_load_engine(*this); }

 private:
  DeviceInfo info_;
};

}  // namespace

BackendEntry entry() {
  return {"host", host_device_count,
          [](int ordinal) -> std::unique_ptr<Device> { return std::make_unique<HostDevice>(ordinal); },
          [](int) { return std::string(); }};
}

}  // namespace hetprobe::host_backend
