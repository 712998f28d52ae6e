// What an interference results file already holds, for --resume: the points
// done (skipped by the run) and the SSB medians the new points' ratios need.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

#include "bench/core/record_field.hpp"
#include "bench/interference/interference.hpp"

namespace hetprobe {

struct ResumedPoints {
  std::set<PointKey> done;
  std::map<std::pair<std::uint64_t, Access>, double> ssb_medians;  // by size and access, ns
};

// Reads back `file` (records of an interference run; see open_results_for)
// for a run with this `config` (InterferenceConfig::to_json()) on `backend`.
// The file's last header must agree on what makes points comparable (send
// mode, writer side, paper, load bytes, reps, warm-up, payload check) and the
// backend, or it is a usage Error naming the setting. A point record that is
// malformed (a field missing or of the wrong type: anything `hetprobe show`
// could not print) is not counted as done: the file is refused with a usage
// Error naming FILE:LINE and the field, so that a damaged file is noticed
// rather than silently carried on.
ResumedPoints resumed_points(const ResultsFile& file, const Json& config, const std::string& backend);

// The key of a point record, read with checked access.
PointKey point_key(const RecordRef& point);

}  // namespace hetprobe
