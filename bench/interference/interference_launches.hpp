// Launches of one interference command pooled (`hetprobe show --pool`): a
// process launch is the unit of replication, so a point's ratio over N
// launches is the median of their paired ratios, with, from 3 launches on, an
// interval from the spread between them (bench/core/effect.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/core/results.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

// What makes runs launches of one command, the one rule that `show --pool`
// and Python's Results.interference_ratios group by: the host, the backend,
// the device's name, each rank's binding and the config, less its seed (each
// launch draws its own) and host_stream (characterize measures the node's
// STREAM in its first launch only). {"host", "backend", "device", "bind",
// "config"}, keys sorted, nulls where a header lacks one.
Json launch_identity(const Json& header);

// The first of launch_identity's parts in which `a` and `b` differ: its name
// ("config.rounds", "device", ...) and its value in each; nothing when they
// are launches of one command.
struct LaunchDifference {
  std::string part;
  Json in_a, in_b;
};
std::optional<LaunchDifference> launch_difference(const Json& a, const Json& b);

// The pooled table of `files`, each an interference results file of launches
// of one command (launch_identity): one row per point found in every file, with
// each launch's median ratio, the pooled median, its interval, the effect it
// supports, and the launches' min and max. A usage Error names a file of
// another probe, host or setting, or a point missing from a launch.
Report interference_launches_report(const std::vector<ResultsFile>& files);

}  // namespace hetprobe
