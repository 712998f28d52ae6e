// Launches of one command, pooled: a process launch is the unit of
// replication (`hetprobe show --pool`: interference_launches.hpp and
// halo_launches.hpp). What makes files launches of one command is this file's
// one rule, Python's too (through hetprobe._core).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/effect.hpp"
#include "base/errors.hpp"
#include "bench/aggregate/pooled_reading.hpp"
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

// The header of `file`, checked to be a header of `probe` that is a launch
// of the command `first` (first_name's header; null: `file` is the first).
// A usage Error names the file and the first difference.
const Json& launch_header(const ResultsFile& file, const std::string& probe, const Json* first,
                          const std::string& first_name);

// "1.012 0.998 1.031": each launch's ratio, as the pooled tables print them.
std::string ratios_text(const std::vector<double>& ratios);

// The columns a pooled table gives each key after its own: how many launches,
// each launch's `value` (column `per_launch`), their pooled median (column
// `value`: "ratio_to_ssb", "speedup"), its 95% interval (text; its ends as
// data), the effect it shows, min and max.
std::vector<Column> pooled_columns(const std::string& value, const std::string& per_launch, int effect_width);
// Those columns' cells for one key: its value in each launch, pooled over
// them, with its interval and effect.
std::vector<Json> pooled_cells(const PooledReading& pooled);
// The same of `values` pooled as `pooled`; `classify` judges the interval
// (classify_ratio, classify_speedup).
std::vector<Json> pooled_cells(const std::vector<double>& values, const PooledRatio& pooled,
                               Effect (*classify)(const Interval&));

// A pooled report's opening lines: the first file's device, how many
// launches were pooled, and each launch's file.
void add_launches_about(Report& report, const std::vector<ResultsFile>& files, const Json& first,
                        const std::string& probe);

// The note a pooled table gets with fewer than 3 launches.
void note_few_launches(Table& table, std::size_t launches);

// Each key of `order` pooled with the keys of its group (base/effect.hpp's
// pool_launch_points: their launches' variance is shared): `values(k)` is
// k's one number per launch, `group_of(k)` its group, `describe(k)` its name
// in the usage Error thrown when a key is not in every one of `launches`.
template <class Key, class Values, class Group, class Describe>
std::map<Key, PooledRatio> pool_by_group(const std::vector<Key>& order, std::size_t launches, Values values,
                                         Group group_of, Describe describe) {
  std::map<decltype(group_of(order.front())), std::vector<Key>> groups;
  for (const Key& k : order) {
    const std::size_t n = values(k).size();
    if (n != launches)
      throw usage_error("--pool: " + describe(k) + " is in " + std::to_string(n) + " of the " +
                        std::to_string(launches) + " launches: pool launches of one command");
    groups[group_of(k)].push_back(k);
  }
  std::map<Key, PooledRatio> pooled;
  for (const auto& [group, keys] : groups) {
    std::vector<std::vector<double>> points;
    for (const Key& k : keys) points.push_back(values(k));
    const std::vector<PooledRatio> p = pool_launch_points(points);
    for (std::size_t i = 0; i < keys.size(); ++i) pooled.emplace(keys[i], p[i]);
  }
  return pooled;
}

}  // namespace hetprobe
