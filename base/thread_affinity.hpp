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

}  // namespace hetprobe
