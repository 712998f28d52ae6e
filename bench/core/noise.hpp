// Conditions that make timings meaningless, and the warnings that say so:
// the node's readings at the start of a run (every results header) and the
// spread of each measured record's samples. Schema: docs/results-schema.md
// ("conditions", "warnings"). Every warning is a sentence naming the reading
// and the threshold; an empty list means the numbers can be taken as they are.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "base/stats.hpp"
#include "bench/core/results.hpp"

namespace hetprobe {

// p90 more than this many times the median: a tail this long is scheduler
// noise, not the thing measured (GPU runs stay within 1.8x but at µs scales:
// notebooks/data).
inline constexpr double kSpreadRatio = 2;
// ... and at least this far above it: a GPU's own effects (a poll load on a
// 1 KiB send, a host callback's wake-up) stretch a tail by microseconds; the
// scheduler's delays are longer (a wake-up tens of µs, a time slice ms).
inline constexpr double kSpreadFloorNs = 50e3;
// A rate (GB/s) whose p10 is under the median divided by this.
inline constexpr double kRateSpreadRatio = 2;
// A clock fit whose drift may be off by more than this (2 x precision over the
// span, a bound): GPU timers drift by a few to ~10 ppm against the host
// (notebooks/data), so a bound above 5 ppm leaves the drift without meaning.
// GPU fits stay near 0.2 ppm over 10 s, a loaded host's reach hundreds.
inline constexpr double kDriftUncertaintyPpm = 5;

// What the node looked like when a run started.
struct NodeReadings {
  std::vector<bool> run_cpus;  // CPUs this run's ranks on this node may use (the union of their affinities)
  int online_cpus = 0;         // of the whole node
  int run_ranks = 1;           // this run's ranks on this node: running when read (the reader, or spinning in MPI)
  std::vector<double> runnable_samples;  // procs_running of /proc/stat: the whole node, every namespace
  // Per reading: runnable threads (state R) by the CPU whose run queue holds
  // them, of the threads /proc shows (a container's own only).
  std::vector<std::vector<int>> runnable_by_cpu;
  std::optional<std::array<double, 3>> load_average;  // /proc/loadavg: 1, 5 and 15 minutes
};

// Reads the node: `samples` readings 25 ms apart, and the load average.
// run_cpus and run_ranks are left for the caller (they need every rank).
NodeReadings read_node_readings(int samples = 5);

// {"conditions": {...readings...}, "warnings": [...]} for a results header.
// Busy threads on the run's CPUs: the median count of runnable threads whose
// run queue is one of them, or, where more, the run's ranks plus the node's
// other runnable threads (procs_running less the ranks; it also sees other
// containers), of which the run's share of the node's CPUs counts when it has
// fewer. More than one per CPU warns. High load: the 1-minute load average
// above the node's online CPUs.
Json conditions_json(const NodeReadings& r);

// Warnings on a summary (summary_json) of times in ns, named `reading` in
// the sentence; `ns_per_sample` scales its values to the time of one sample
// when they are per operation (notify overhead: ops per sample). A null or
// unresolved summary has none.
Json spread_warnings(const Json& summary, const std::string& reading, double ns_per_sample = 1);
// Warnings on rates (GB/s, more is better): p10 under median / kRateSpreadRatio.
Json rate_spread_warnings(const Summary& rates, const std::string& reading);
// Warnings on a clock fit: residuals beyond the samples' own precision, a
// later check outside its precision, a drift too uncertain to mean anything.
Json clock_fit_warnings(double precision_ns, double residual_rms_ns, double span_ns, double drift_ppm,
                        bool check_within_precision, double check_error_ns, double check_precision_ns);

// Warnings on a time shorter than the step it is made of (`step`, `step_ns`
// long): a value under one step cannot mean what its name says, and
// `meaning` says what it means instead. None for a non-finite value or step.
Json below_step_warnings(double value_ns, const std::string& reading, double step_ns, const std::string& step,
                         const std::string& meaning);

// CPUs in a list like "0-3,8" (format_cpu_list's form) as flags by OS index.
std::vector<bool> parse_cpu_list(const std::string& text);

}  // namespace hetprobe
