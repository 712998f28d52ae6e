// The device side of the notification and clock probes, written once for
// every backend: one device thread (a 1x1 kernel, or a host thread on the
// host backend) runs run_signal() against flags the host side also touches.
//
// Flags hold sequence numbers that only grow, compared with >=, so no flag is
// ever reset between exchanges (DIGEST Q11). The clock task is the exception:
// it follows the thesis (003 Sec. 4.3.2) literally, with 0 as "empty".
// Every wait gives up timeout_ticks of the device timer after it began
// (device_wait.hpp) and reports signal_status_timeout: a kernel never spins
// forever, and a long task is never cut short while the host still answers.
#pragma once

#include <cstdint>
#include <type_traits>

#include "probes/device/device_wait.hpp"
#include "probes/device/portability.hpp"

namespace hetprobe {

// How a flag is read and written, on either side: the primitive decides the
// latency (notebooks/data/h200-notify.txt has measured numbers).
//   volatile: plain volatile loads and stores
//   relaxed:  relaxed atomics (system scope on a GPU)
//   acqrel:   acquire loads, release stores (system scope on a GPU)
//   fence:    volatile loads; a volatile store followed by a system fence, which
//             pushes the store out at once (on an H200 a GPU's volatile store
//             without it made the round trip ~0.7 us longer:
//             notebooks/data/h200-notify.txt)
enum class MemoryOrder : int { volatile_access = 0, relaxed = 1, acq_rel = 2, fence = 3 };

enum class SignalKind : int {
  overhead = 0,  // `count` x (load flag; store flag + 1), timed as a whole: a loop on a line this thread owns
  echo = 1,      // for each seq: wait to_device >= seq, then to_host = seq
  initiate = 2,  // for each seq: t0; to_host = seq; wait to_device >= seq; samples[i] = t1 - t0
  poll = 3,      // load to_device until stop >= first: a contender polling a flag
  clock = 4,     // for each sample: wait go; post timer; wait reset; post timer (thesis 4.3.2)
  tick = 5,      // read the timer `count` times: the smallest step it makes
  // The handover pairs (paper 002 Table 1): one read + one write of a flag
  // the other side wrote last, `target`, on a page of its own. The target's
  // writer stores 2 seq and the pair stores what it loaded + 1, so a load that
  // missed the other side's write is seen (below 2 seq).
  // handover_write: for each seq: wait to_device >= seq; target = 2 seq;
  //   to_host = seq (a release store): the host times its pair after it.
  handover_write = 6,
  // handover_pair: for each seq: wait to_device >= seq (the host wrote the
  //   target first); t0; target = target + 1; samples[i] = t1 - t0; to_host = seq.
  handover_pair = 7,
  timer_cost = 8,  // `count` x (t0 = timer(); samples[i] = timer() - t0): the timer's own cost
};

inline constexpr unsigned long long signal_status_ok = 1;
inline constexpr unsigned long long signal_status_timeout = 2;

// Written by the device thread when it ends, read by the host after joining.
struct alignas(128) SignalResult {
  unsigned long long status;
  unsigned long long completed;       // exchanges / iterations done
  unsigned long long t_start, t_end;  // device timer around the whole task
  unsigned long long value;           // overhead: last flag value; poll: loads made; tick: smallest step;
                                      // handover_pair: loads that missed the host's write
};

// Device addresses. Flags the host polls are in host-visible memory.
struct SignalArgs {
  SignalKind kind;
  MemoryOrder order;
  unsigned long long* to_device;  // host writes, device reads (overhead: the one flag)
  unsigned long long* to_host;    // device writes, host reads
  unsigned long long* stop;       // poll: host sets it to end the contender
  unsigned long long* samples;    // initiate, handover_pair, timer_cost: `count` device-timed intervals, ticks
  unsigned long long* target;     // handover_write, handover_pair: the flag the pair touches
  SignalResult* result;
  std::uint64_t count;
  std::uint64_t first;          // sequence number of the first exchange
  std::uint64_t timeout_ticks;  // per wait; poll: the contender's whole run
};

// Ops: timer(), fence_system(), load_volatile/load_relaxed/load_acquire,
// store_volatile/store_relaxed/store_release on unsigned long long*.
template <MemoryOrder O, class Ops>
HETPROBE_HD inline unsigned long long load_flag(Ops& ops, const unsigned long long* p) {
  if constexpr (O == MemoryOrder::relaxed) return ops.load_relaxed(p);
  else if constexpr (O == MemoryOrder::acq_rel) return ops.load_acquire(p);
  else return ops.load_volatile(p);  // volatile, and fence: its loads are plain
}

template <MemoryOrder O, class Ops>
HETPROBE_HD inline void store_flag(Ops& ops, unsigned long long* p, unsigned long long v) {
  if constexpr (O == MemoryOrder::relaxed) ops.store_relaxed(p, v);
  else if constexpr (O == MemoryOrder::acq_rel) ops.store_release(p, v);
  else if constexpr (O == MemoryOrder::fence) {
    ops.store_volatile(p, v);
    ops.fence_system();
  } else ops.store_volatile(p, v);
}

template <MemoryOrder O, class Ops>
HETPROBE_HD inline void run_signal_ordered(Ops& ops, const SignalArgs& a) {
  const std::uint64_t t_start = ops.timer();
  unsigned long long status = signal_status_ok, value = 0;
  std::uint64_t done = 0;
  // Spins until pred() holds; when this wait's time is up, marks the task timed out.
  const auto await = [&](auto pred) {
    if (spin_until(ops, pred, a.timeout_ticks)) return true;
    status = signal_status_timeout;
    return false;
  };
  switch (a.kind) {
    case SignalKind::overhead:
      for (; done < a.count; ++done) store_flag<O>(ops, a.to_device, load_flag<O>(ops, a.to_device) + 1);
      break;
    case SignalKind::echo:
      for (; done < a.count; ++done) {
        const std::uint64_t seq = a.first + done;
        if (!await([&] { return load_flag<O>(ops, a.to_device) >= seq; })) break;
        store_flag<O>(ops, a.to_host, seq);
      }
      break;
    case SignalKind::initiate:
      for (; done < a.count; ++done) {
        const std::uint64_t seq = a.first + done;
        const std::uint64_t t0 = ops.timer();
        store_flag<O>(ops, a.to_host, seq);
        if (!await([&] { return load_flag<O>(ops, a.to_device) >= seq; })) break;
        a.samples[done] = ops.timer() - t0;
      }
      break;
    case SignalKind::poll:
      for (;;) {
        value += load_flag<O>(ops, a.to_device) != ~0ull;  // counts loads; the compare keeps the load
        if ((value & 63) == 0) {
          if (load_flag<MemoryOrder::acq_rel>(ops, a.stop) >= a.first) break;
          if (ops.timer() - t_start > a.timeout_ticks) {
            status = signal_status_timeout;
            break;
          }
        }
      }
      break;
    case SignalKind::clock:
      for (; done < a.count; ++done) {
        const std::uint64_t seq = a.first + done;
        if (!await([&] { return load_flag<O>(ops, a.to_device) >= seq; })) break;
        const std::uint64_t ts_start = ops.timer();
        store_flag<O>(ops, a.to_host, ts_start ? ts_start : 1);
        if (!await([&] { return load_flag<O>(ops, a.to_host) == 0; })) break;
        const std::uint64_t ts_end = ops.timer();
        store_flag<O>(ops, a.to_host, ts_end ? ts_end : 1);
      }
      break;
    case SignalKind::handover_write:
      for (; done < a.count; ++done) {
        const std::uint64_t seq = a.first + done;
        if (!await([&] { return load_flag<MemoryOrder::acq_rel>(ops, a.to_device) >= seq; })) break;
        store_flag<O>(ops, a.target, 2 * seq);
        // A release store at system scope: the host that sees it sees the target's value.
        store_flag<MemoryOrder::acq_rel>(ops, a.to_host, seq);
      }
      break;
    case SignalKind::handover_pair:
      for (; done < a.count; ++done) {
        const std::uint64_t seq = a.first + done;
        // An acquire load: the target the host stored before the go is the one this thread loads.
        if (!await([&] { return load_flag<MemoryOrder::acq_rel>(ops, a.to_device) >= seq; })) break;
        const std::uint64_t t0 = ops.timer();
        const unsigned long long seen = load_flag<O>(ops, a.target);
        store_flag<O>(ops, a.target, seen + 1);
        const std::uint64_t t1 = ops.timer();
        a.samples[done] = t1 - t0;
        value += seen < 2 * seq;
        store_flag<MemoryOrder::acq_rel>(ops, a.to_host, seq);
      }
      break;
    case SignalKind::timer_cost:
      for (; done < a.count; ++done) {
        const std::uint64_t t0 = ops.timer();
        a.samples[done] = ops.timer() - t0;
      }
      break;
    case SignalKind::tick: {
      std::uint64_t prev = ops.timer(), smallest = ~0ull;
      for (; done < a.count; ++done) {
        const std::uint64_t t = ops.timer();
        if (t != prev && t - prev < smallest) smallest = t - prev;
        prev = t;
      }
      value = smallest;
      break;
    }
  }
  a.result->status = status;
  a.result->completed = done;
  a.result->t_start = t_start;
  a.result->t_end = ops.timer();
  a.result->value = value;
  ops.fence_system();
}

// Calls f(std::integral_constant<MemoryOrder, order>{}): a run-time choice
// made once, outside the loops it decides.
template <class F>
HETPROBE_HD inline void with_order(MemoryOrder order, F&& f) {
  switch (order) {
    case MemoryOrder::relaxed: f(std::integral_constant<MemoryOrder, MemoryOrder::relaxed>{}); break;
    case MemoryOrder::acq_rel: f(std::integral_constant<MemoryOrder, MemoryOrder::acq_rel>{}); break;
    case MemoryOrder::fence: f(std::integral_constant<MemoryOrder, MemoryOrder::fence>{}); break;
    default: f(std::integral_constant<MemoryOrder, MemoryOrder::volatile_access>{}); break;
  }
}

template <class Ops>
HETPROBE_HD inline void run_signal(Ops& ops, const SignalArgs& a) {
  with_order(a.order, [&](auto order) { run_signal_ordered<decltype(order)::value>(ops, a); });
}

}  // namespace hetprobe
