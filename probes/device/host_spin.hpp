// The host side of every flag wait: spin on a condition, bounded in time and
// stopped by a stop request; and how any host thread waits once a wait is long.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "base/errors.hpp"
#include "base/stop_request.hpp"
#include "probes/writer/writer_protocol.hpp"

namespace hetprobe {

// A host thread's wait spins this long: a GPU's flag round trip is about
// 2 us, and a pause inside it would be measured with it.
inline constexpr std::chrono::microseconds kHostSpinOnly{50};
// Then it sleeps this long between polls, so that it does not starve the
// thread it waits for when there are more threads than CPUs. A sleep, not a
// yield: a yield hands a CPU shared with busy threads to one of them for a
// whole time slice (a 2-thread ping-pong on one CPU beside two busy loops:
// median 1.8 ms with yields, 0.14 ms with sleeps), while a sleeping thread is
// woken in tens of microseconds and runs first.
inline constexpr std::chrono::microseconds kHostWaitSleep{20};

// What a host thread does inside a wait that has lasted `waited`.
inline void host_wait_pause(std::chrono::nanoseconds waited) {
  if (waited >= kHostSpinOnly) std::this_thread::sleep_for(kHostWaitSleep);
}

inline Error wait_timeout(const char* what, double timeout_s) {
  char limit[40];
  std::snprintf(limit, sizeof limit, "%g s (--timeout)", timeout_s);
  return Error(ErrorKind::timeout, std::string(what) + " did not happen within " + limit);
}

inline Error stopped_while(const char* what) {
  return Error(ErrorKind::interrupted, std::string("stopped while waiting for ") + what);
}

// Spins until pred() holds. Throws a timeout Error naming `what` after
// `timeout_s` (infinite: never), and an interrupted Error once a stop is
// requested: on entry (a loop of short waits ends at its next wait; the other
// side is still at work then, so the check costs the wait nothing) and at
// every clock read. The clock is read every 4096 polls while the wait is
// short (the flag load is the latency being measured), then at every poll,
// with host_wait_pause() between polls.
template <class Pred>
inline void spin_host(Pred pred, double timeout_s, const char* what) {
  using Clock = std::chrono::steady_clock;
  if (stop_requested()) throw stopped_while(what);
  const auto start = Clock::now();
  for (unsigned polls = 4096;;) {
    for (unsigned k = 0; k < polls; ++k)
      if (pred()) return;
    const auto waited = Clock::now() - start;
    if (stop_requested()) throw stopped_while(what);
    // In double seconds: an infinite timeout never passes, and nothing overflows.
    if (std::chrono::duration<double>(waited).count() > timeout_s) throw wait_timeout(what, timeout_s);
    if (waited >= kHostSpinOnly) polls = 1;
    host_wait_pause(waited);
  }
}

// The host's read of a flag a device writes.
inline unsigned long long load_acquire(const FlagLine& line) {
  return std::atomic_ref<const unsigned long long>(line.value).load(std::memory_order_acquire);
}

// Spins until `flag` reaches `epoch`, calling check_alive() (a backend call,
// which throws once the other side has died) every 4096 polls only. The wait
// gives the CPU away once it is long: the host threads written to may need it.
template <class CheckAlive>
inline void spin_host_for_epoch(const FlagLine& flag, unsigned long long epoch, CheckAlive check_alive,
                                double timeout_s, const char* what) {
  unsigned polls = 0;
  spin_host(
      [&] {
        if ((polls++ & 0xFFF) == 0) check_alive();
        return load_acquire(flag) >= epoch;
      },
      timeout_s, what);
}

}  // namespace hetprobe
