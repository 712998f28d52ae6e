// Launches of one command, pooled: a process launch is the unit of
// replication (`hetprobe show --pool`: interference_launches.hpp and
// halo_launches.hpp). What makes files launches of one command is this file's
// one rule, Python's too (through hetprobe._core).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/core/results.hpp"

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

// The header of `file`, checked to be a header of `probe` that is a launch
// of the command `first` (first_name's header; null: `file` is the first).
// A usage Error names the file and the first difference.
const Json& launch_header(const ResultsFile& file, const std::string& probe, const Json* first,
                          const std::string& first_name);

// "1.012 0.998 1.031": each launch's ratio, as the pooled tables print them.
std::string ratios_text(const std::vector<double>& ratios);

}  // namespace hetprobe
