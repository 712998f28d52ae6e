// The node verdict: which GPU of a node is off, computed once, here, from the
// gpus probe's rounds (every launch of a run, both phases) and the bandwidth
// probe's link records. `hetprobe gpus` writes it for its own launch,
// characterize and `hetprobe check` compute it over a whole run through
// _core, and the report reads what they recorded. The rules (docs/metrics.md,
// "The node verdict"):
//   - a GPU's number is the median of its visits; its 95% interval is the
//     hull of the rounds' median interval and, with 3 launches or more, the
//     launches' interval (base/effect.hpp): a launch is the unit of
//     replication, so a process's own state cannot narrow it;
//   - against the node, each visit's number is divided by the median of the
//     other GPUs' numbers in the same round (on two GPUs: the other GPU's), so
//     a transient of the whole node cancels; a GPU is a candidate only when
//     the interval of that ratio lies wholly beyond the tolerance in the bad
//     direction, and it is flagged "confirmed" only when a later launch's
//     re-measure (phase remeasure) says so again; otherwise "not confirmed, a
//     transient", or "not re-measured" where no re-measure ran;
//   - a PCIe link read below its maximum (under load) is flagged as read;
//   - against a baseline (one or several runs of one node, 2 launches or more
//     among them, so that their launch-to-launch spread is measured), a
//     number is outside when its interval lies wholly beyond the worst end of
//     the baselines' launches and intervals by more than the tolerance.
#pragma once

#include <string>
#include <vector>

#include "bench/core/results.hpp"

namespace hetprobe {

inline constexpr double kDefaultTolerance = 0.10;

// "10%" or "0.1" as 0.1. A usage Error naming `option` for anything else: not
// a number, 0 or less, 100% or more; a bare number of 1 or more is refused,
// since "10" could mean 10% or ten times.
double parse_tolerance(const std::string& text, const std::string& option = "--tolerance");
// 0.1 as "10%".
std::string tolerance_text(double tolerance);

// A run: its results files, of any probe (the verdict reads what it needs).
using RunFiles = std::vector<ResultsFile>;

// The verdict of a run's GPUs against each other (schema: docs/results-schema.md,
// "gpus_verdict"). A run without gpus rounds has no GPU numbers: its verdict
// says so, and holds the link flags alone.
Json node_verdict(const RunFiles& run, double tolerance);

// The run's GPUs against the same GPUs (by rank) of `baselines`, runs of one
// node. Usage Errors: a run or baseline without gpus rounds, baselines of
// other hosts, GPU counts, backends or GPU models than each other, a run of
// another GPU count, backend or models than theirs, and baselines of fewer
// than 2 launches in all (no launch-to-launch spread measured: no claim).
Json baseline_verdict(const RunFiles& run, const std::vector<RunFiles>& baselines, double tolerance);

// What a node must match of a baseline before characterize measures it: its
// GPU count, backend and each GPU's model (`names`: by ordinal). The same
// usage Errors as baseline_verdict's; `where` names the node in them.
struct NodeIdentity {
  int gpus = 0;
  std::string backend;
  std::vector<std::string> names;
};
void check_baseline_node(const NodeIdentity& node, const std::vector<RunFiles>& baselines, const std::string& where);

// A device's name less the mark of a host device slowed on purpose
// (HETPROBE_HOST_SLOW, a test option): the same model, made slower, is what a
// baseline check is there to catch.
std::string device_model(const std::string& name);

}  // namespace hetprobe
