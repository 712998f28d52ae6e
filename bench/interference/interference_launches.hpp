// Launches of one interference command pooled (`hetprobe show --pool`): a
// process launch is the unit of replication, so a point's ratio over N
// launches is the median of their paired ratios, with, from 3 launches on, an
// interval from the spread between them (base/effect.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/core/launches.hpp"
#include "bench/core/results.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

// The pooled table of `files`, each an interference results file of launches
// of one command (launch_identity): one row per point found in every file, with
// each launch's median ratio, the pooled median, its interval, the effect it
// supports, and the launches' min and max. A usage Error names a file of
// another probe, host or setting, or a point missing from a launch.
Report interference_launches_report(const std::vector<ResultsFile>& files);

// The same launches as records: the first launch's header, naming the
// launches (pooled_header), and an aggregate record per point.
std::vector<Json> interference_pooled_records(const std::vector<ResultsFile>& files);

}  // namespace hetprobe
