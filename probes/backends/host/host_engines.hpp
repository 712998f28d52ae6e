// The host backend's engines, made by HostDevice (host_device.cpp): CPU
// threads run the same protocol code as the GPU kernels.
#pragma once

#include <chrono>
#include <memory>
#include <thread>

#include "probes/copy/copy_engine.hpp"
#include "probes/halo/halo_engine.hpp"
#include "probes/load/load_engine.hpp"
#include "probes/signal/signal_engine.hpp"
#include "probes/writer/writer_engine.hpp"

namespace hetprobe::host_backend {

std::unique_ptr<WriterEngine> make_writer_engine(Device& device);    // host_writer_engine.cpp
std::unique_ptr<SignalEngine> make_signal_engine(Device& device);    // host_signal_engine.cpp
std::unique_ptr<HaloEngine> make_halo_engine(const Device& device);  // host_halo_engine.cpp
std::unique_ptr<LoadEngine> make_load_engine(Device& device);        // host_load_engine.cpp

// Threads of a "stacked" launch: every hardware thread but the caller's.
inline int stacked_threads(const DeviceInfo& info) { return info.multiprocessors > 1 ? info.multiprocessors - 1 : 1; }

// A device slowed on purpose (HETPROBE_HOST_SLOW, DeviceInfo::simulated_slowdown):
// a thread's work takes `factor` times as long, for real. stretch() waits
// (factor - 1) x the time since the last mark (or since this was made), then
// marks; mark() alone starts the work anew after an idle wait that is not to
// be stretched. The protocols are shared with the GPU kernels, so the engines
// call these from their own ops, never the protocols.
class WorkStretch {
 public:
  explicit WorkStretch(double factor) : factor_(factor) {}
  void stretch() {
    Clock::time_point now = Clock::now();
    // Less the clock read this call adds to the work (a host flag round trip
    // is ~200 ns; a read ~30 ns): the last read below is the next mark.
    const auto wait = std::chrono::duration_cast<Clock::duration>((now - since_) * (factor_ - 1)) - read_cost();
    const Clock::time_point until = now + wait;
    // Long stretches sleep most of the way (a loaded machine's other threads
    // get the CPU), then spin.
    if (wait > std::chrono::microseconds(200)) std::this_thread::sleep_until(until - std::chrono::microseconds(100));
    while (now < until) now = Clock::now();
    since_ = now;
  }
  void mark() { since_ = Clock::now(); }

 private:
  using Clock = std::chrono::steady_clock;
  // One Clock::now(), measured once per process.
  static Clock::duration read_cost() {
    static const Clock::duration cost = [] {
      constexpr int reads = 1000;
      const Clock::time_point t0 = Clock::now();
      for (int i = 1; i < reads; ++i) (void)Clock::now();
      return (Clock::now() - t0) / reads;
    }();
    return cost;
  }
  double factor_;
  Clock::time_point since_ = Clock::now();
};

}  // namespace hetprobe::host_backend
