// What moves a CPU-side baseline and is not the thing measured: the cores a
// rank ran on, their frequency governor and limits, the idle states they may
// enter (a deep state's exit latency lands in a wake-up), and transparent huge
// pages. Read from sysfs under a root given by the caller (a test points it at
// a fake tree); a file that is absent (a VM without cpufreq or cpuidle) gives
// none, never a made-up value. Schema: docs/results-schema.md (ranks[].conditions).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/results.hpp"

namespace hetprobe {

// One idle state a CPU may enter (its `disable` is not 1).
struct IdleState {
  std::string name;                // "POLL", "C1", "C1E", ... (cpuidle/stateK/name)
  std::optional<long> latency_us;  // exit latency, µs (cpuidle/stateK/latency)
};

// One CPU's frequency and idle settings (cpuN/cpufreq, cpuN/cpuidle).
struct CpuConditions {
  int cpu = 0;
  std::optional<std::string> governor;  // scaling_governor, e.g. "performance"
  std::optional<double> min_mhz;        // scaling_min_freq (kHz in sysfs)
  std::optional<double> max_mhz;        // scaling_max_freq
  std::optional<double> cur_mhz;        // scaling_cur_freq, when read
  // The enabled states in index order; none without cpuidle (no stateK at all).
  std::optional<std::vector<IdleState>> idle_states;
};

// The selected values of /sys/kernel/mm/transparent_hugepage/{enabled,defrag}.
struct TransparentHugepages {
  std::optional<std::string> enabled;  // "always", "madvise", "never"
  std::optional<std::string> defrag;   // "always", "defer", "defer+madvise", "madvise", "never"
};

// Reads `sysfs_root`/devices/system/cpu/cpu<cpu>/{cpufreq,cpuidle}. Never throws.
CpuConditions read_cpu_conditions(int cpu, const std::filesystem::path& sysfs_root);
// Reads `sysfs_root`/kernel/mm/transparent_hugepage. Never throws.
TransparentHugepages read_transparent_hugepages(const std::filesystem::path& sysfs_root);

// The CPUs the calling thread was on at `samples` sched_getcpu() readings
// `gap` apart, ascending, each once (empty if sched_getcpu fails). Blocks for
// about samples x gap: the sleeps let the scheduler move the thread.
std::vector<int> sample_cpus_ran_on(int samples, std::chrono::microseconds gap);

// {cpu, governor, min_mhz, max_mhz, cur_mhz, idle_states: [{name, latency_us}] or null}
Json cpu_conditions_json(const CpuConditions& c);
// {enabled, defrag}, null where unreadable.
Json transparent_hugepages_json(const TransparentHugepages& t);

}  // namespace hetprobe
