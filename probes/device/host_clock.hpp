// The clock the harness times host-side calls (MPI_Send) with.
//
// tsc: the invariant time-stamp counter read with a plain rdtsc, the way
// Google Benchmark's cycleclock does: about 10 ns per read, where
// clock_gettime costs about 30 ns (measured on an H200 node's Xeon, Open MPI
// 4.1.6: a 1 KiB MPI_Send took ~1 us, so the cheaper read keeps the harness
// under 2 % of the smallest send). Its rate is calibrated against
// steady_clock at start. steady: std::chrono::steady_clock, everywhere else.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/enum_table.hpp"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace hetprobe {

// --clock: the TSC where it is invariant (auto), the TSC, or steady_clock.
enum class ClockChoice { auto_pick, tsc, steady };
inline constexpr EnumTable<ClockChoice, 3> kClockChoiceNames{"host clock",
                                                             {{{ClockChoice::auto_pick, "auto"},
                                                               {ClockChoice::tsc, "tsc"},
                                                               {ClockChoice::steady, "steady"}}}};

class HostClock {
 public:
  // Throws a usage Error for tsc where no invariant TSC exists.
  static HostClock create(ClockChoice choice);

  std::uint64_t now() const {
#if defined(__x86_64__)
    if (tsc_) return __rdtsc();
#endif
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  // now(), kept in order with the loads around it: on the TSC, lfence before
  // and after rdtsc, so every load issued before it has completed when the
  // clock is read and none after it has begun. For a region of one load and
  // one store (the handover pair), where a plain rdtsc may read the clock
  // before the load is back, and the region would time the issue, not the miss.
  std::uint64_t now_ordered() const {
#if defined(__x86_64__)
    if (tsc_) {
      _mm_lfence();
      const std::uint64_t t = __rdtsc();
      _mm_lfence();
      return t;
    }
#endif
    return now();
  }
  double to_ns(std::uint64_t ticks) const { return static_cast<double>(ticks) / ticks_per_ns_; }
  const std::string& source() const { return source_; }
  double ticks_per_ns() const { return ticks_per_ns_; }
  // Whether a tick is a cycle of the CPU's nominal clock (the invariant TSC
  // runs at it), so that a time can be checked against one cycle.
  bool counts_cycles() const { return tsc_; }

  // One empty timed region (now(); now();), in ns: the harness's own cost
  // inside every timed interval.
  std::uint64_t empty_region_ticks() const {
    const std::uint64_t t0 = now();
    return now() - t0;
  }
  double empty_region_sample_ns() const { return to_ns(empty_region_ticks()); }
  // One empty region of now_ordered(): its own cost in a handover pair's region.
  std::uint64_t ordered_empty_region_ticks() const {
    const std::uint64_t t0 = now_ordered();
    return now_ordered() - t0;
  }
  // Median of `n` empty timed regions, in ns.
  double empty_region_ns(int n = 100000) const;

 private:
  bool tsc_ = false;
  double ticks_per_ns_ = 1;
  std::string source_ = "steady_clock";
};

}  // namespace hetprobe
