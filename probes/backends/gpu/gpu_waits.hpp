// Kernels that wait on the host (signal, halo) and how the host ends their
// waits early: each GPU has one pinned "abandon" flag that g_abandon_waits
// points at, set once a stop is requested or an engine closes while its
// kernel still waits. Included by gpu_device.cpp.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "base/stop_request.hpp"
#include "probes/backends/gpu/gpu_kernels.hpp"

namespace hetprobe::HETPROBE_BACKEND_NS {

// The flag g_abandon_waits points at on GPU `ordinal`: pinned, one per GPU,
// kept for the process's life (the device symbol is per GPU, and every
// engine of that GPU shares it). Call with `ordinal` the current device.
inline FlagLine* abandon_flag(int ordinal) {
  static std::mutex mutex;
  static std::map<int, FlagLine*> flags;
  const std::lock_guard lock(mutex);
  FlagLine*& flag = flags[ordinal];
  if (flag == nullptr) {
    FlagLine* line = nullptr;
    HP_CHECK(gpu::host_alloc(reinterpret_cast<void**>(&line), sizeof(FlagLine)));
    *line = {};
    unsigned long long* on_device = nullptr;
    HP_CHECK(HP_RT(HostGetDevicePointer)(reinterpret_cast<void**>(&on_device), &line->value, 0));
    HP_CHECK(HP_RT(MemcpyToSymbol)(reinterpret_cast<const void*>(&g_abandon_waits), &on_device, sizeof on_device));
    flag = line;
  }
  return flag;
}

// The waits of one GPU, as an engine that launches waiting kernels sees them.
class GpuWaits {
 public:
  explicit GpuWaits(int ordinal) : flag_(abandon_flag(ordinal)) {}
  // Before a launch: its waits run until their flag or their timeout.
  void keep() { std::atomic_ref<unsigned long long>(flag_->value).store(0, std::memory_order_release); }
  // Every waiting kernel of this GPU gives up at its next check.
  void abandon() { std::atomic_ref<unsigned long long>(flag_->value).store(1, std::memory_order_release); }

  // Waits for a stream of kernels that wait on the host. Once a stop is
  // requested it abandons their waits, so that Ctrl-C ends the run at once
  // rather than after the kernels' own timeout.
  void join(gpu::Stream s) {
    for (;;) {
      const gpu::Error e = HP_RT(StreamQuery)(s);
      if (e != HP_RT(ErrorNotReady)) {
        HP_CHECK(e);
        return;
      }
      if (stop_requested()) abandon();
      // A yield, not a sleep: halo iterations are timed across these joins,
      // and a stream synchronise (which this replaces) spins, adding nothing.
      std::this_thread::yield();
    }
  }

  // For an engine's destructor: a kernel still waiting on `s` ends now.
  void abandon_if_busy(gpu::Stream s) {
    if (HP_RT(StreamQuery)(s) == HP_RT(ErrorNotReady)) abandon();
  }

 private:
  FlagLine* flag_;
};

}  // namespace hetprobe::HETPROBE_BACKEND_NS
