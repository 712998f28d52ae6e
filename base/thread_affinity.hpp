// Binding the calling thread to CPUs: an engine's helper threads (the copy
// feeder, host workers) run where the probe asks, away from the CPU that times
// the send, so they do not take its time.
#pragma once

#include <pthread.h>
#include <sched.h>

#include <vector>

namespace hetprobe {

// Binds the calling thread to `cpus` (OS indexes); nothing when empty. A refusal
// leaves the thread where it was: the binding is a preference, not a result.
inline void bind_current_thread(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// The CPUs this process may use, less the one the calling thread runs on now:
// where a helper thread stands in for another processor (the host backend's
// device thread), it must not share its launcher's CPU, or the two take turns
// on it (a round trip of ~0.3 us became ~150 us for as long as the scheduler
// left them there). Empty where the process has one CPU.
inline std::vector<int> cpus_besides_this_one() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return {};
  const int here = sched_getcpu();
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set) && c != here) cpus.push_back(c);
  return cpus;
}

}  // namespace hetprobe
