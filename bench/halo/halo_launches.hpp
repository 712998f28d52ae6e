// Launches of one halo command pooled (`hetprobe show --pool`): per layout
// and setup, each launch's paired speed-up over its strongest baseline
// (halo_speedup.hpp), their median and, from 3 launches on, an interval from
// the spread between launches, the launches' variance pooled over the setups
// of a layout (base/effect.hpp's pool_launch_points).
#pragma once

#include <vector>

#include "bench/core/results.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

// A usage Error names a file of another probe, host or setting, or a setup
// missing from a launch.
Report halo_launches_report(const std::vector<ResultsFile>& files);

}  // namespace hetprobe
