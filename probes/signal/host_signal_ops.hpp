// Flag loads and stores as the host does them, in the shape run_signal()
// expects: the host side of every flag probe, and the host backend's "device"
// thread. Volatile accesses are plain loads and stores the compiler must keep.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/stop_request.hpp"
#include "probes/device/host_spin.hpp"

namespace hetprobe {

struct HostSignalOps {
  // The host backend's device threads: their device's "end every wait" (set
  // when it closes while they wait, as a GPU's abandon flag is).
  const std::atomic<bool>* abandoned = nullptr;

  // Inside a device-side wait (device_wait.hpp) on a host thread: give the CPU
  // away once the wait is long, and give the wait up once a stop is requested
  // or the device abandoned its waits.
  bool pause_in_wait(std::uint64_t waited_ns) {
    if (stop_requested() || (abandoned != nullptr && abandoned->load(std::memory_order_acquire))) return false;
    host_wait_pause(std::chrono::nanoseconds(waited_ns));
    return true;
  }
  std::uint64_t timer() const {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }
  void fence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
  void fence_device() { fence_system(); }  // one memory: device scope is system scope
  unsigned long long load_volatile(const unsigned long long* p) {
    return *static_cast<const volatile unsigned long long*>(p);
  }
  unsigned long long load_relaxed(const unsigned long long* p) {
    return std::atomic_ref<const unsigned long long>(*p).load(std::memory_order_relaxed);
  }
  unsigned long long load_acquire(const unsigned long long* p) {
    return std::atomic_ref<const unsigned long long>(*p).load(std::memory_order_acquire);
  }
  void store_volatile(unsigned long long* p, unsigned long long v) {
    *static_cast<volatile unsigned long long*>(p) = v;
  }
  void store_relaxed(unsigned long long* p, unsigned long long v) {
    std::atomic_ref<unsigned long long>(*p).store(v, std::memory_order_relaxed);
  }
  void store_release(unsigned long long* p, unsigned long long v) {
    std::atomic_ref<unsigned long long>(*p).store(v, std::memory_order_release);
  }
};

}  // namespace hetprobe
