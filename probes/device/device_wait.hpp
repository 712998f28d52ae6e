// How a device-side wait spins, written once for every backend (the signal
// tasks and the halo unpack use it).
//
// Every wait is bounded on its own: it gives up `timeout_ticks` after it
// began, never after the task began, so a long task on a slow machine does
// not run out of time while the host is still answering within its timeout.
//
// Ops may define pause_in_wait(waited_ticks) -> bool: called now and then
// inside a wait with the ticks waited so far; false gives the wait up at once
// (the host backend's threads, once a stop was requested). The host backend's
// threads sleep there once a wait is long (host_spin.hpp), so that on an
// oversubscribed machine they do not take the CPU from the thread they wait
// for; GPU ops define none: a GPU thread's spin takes nothing from the host.
#pragma once

#include <cstdint>

#include "probes/device/portability.hpp"

namespace hetprobe {

// false: give the wait up now.
template <class Ops>
HETPROBE_HD inline bool pause_in_wait(Ops& ops, std::uint64_t waited_ticks) {
  if constexpr (requires { ops.pause_in_wait(waited_ticks); }) return ops.pause_in_wait(waited_ticks);
  else return true;
}

// Spins until pred() holds; false once `timeout_ticks` have passed since this
// wait began, or when pause_in_wait says so. The timer is read every 64 loads
// only (on a GPU it costs more than a flag load), and first only when the
// first load has not seen the flag: a wait that is over at once costs no timer read.
template <class Ops, class Pred>
HETPROBE_HD inline bool spin_until(Ops& ops, Pred pred, std::uint64_t timeout_ticks) {
  std::uint64_t t0 = 0;
  for (std::uint64_t k = 0;; ++k) {
    if (pred()) return true;
    if ((k & 63) != 0) continue;
    const std::uint64_t now = ops.timer();
    if (k == 0) t0 = now;
    else if (now - t0 > timeout_ticks || !pause_in_wait(ops, now - t0)) return false;
  }
}

}  // namespace hetprobe
