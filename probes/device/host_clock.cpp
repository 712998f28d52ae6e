#include "probes/device/host_clock.hpp"

#include <fstream>
#include <thread>
#include <vector>

#include "base/errors.hpp"
#include "base/stats.hpp"

namespace hetprobe {

namespace {

// Invariant TSC: constant rate, counting through sleep states.
bool invariant_tsc() {
#if defined(__x86_64__)
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("flags", 0) == 0)
      return line.find(" constant_tsc") != std::string::npos && line.find(" nonstop_tsc") != std::string::npos;
#endif
  return false;
}

}  // namespace

HostClock HostClock::create(ClockChoice choice) {
  HostClock c;
  if (choice == ClockChoice::steady) return c;
  if (!invariant_tsc()) {
    if (choice == ClockChoice::tsc) throw usage_error("--clock tsc: this CPU has no invariant TSC");
    return c;
  }
  // Calibrate over 50 ms: the steady_clock reads' ~30 ns error is < 1e-6 of it.
  using Steady = std::chrono::steady_clock;
  c.tsc_ = true;
  const auto s0 = Steady::now();
  const std::uint64_t t0 = c.now();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto s1 = Steady::now();
  const std::uint64_t t1 = c.now();
  c.ticks_per_ns_ = static_cast<double>(t1 - t0) / std::chrono::duration<double, std::nano>(s1 - s0).count();
  c.source_ = "tsc";
  return c;
}

double HostClock::empty_region_ns(int n) const {
  std::vector<double> d(static_cast<std::size_t>(n));
  for (auto& x : d) x = empty_region_sample_ns();
  return summarize(d).median;
}

}  // namespace hetprobe
