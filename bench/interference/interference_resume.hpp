// What an interference results file already holds, for --resume: the points
// done. The run skips the sizes whose points are all done, and measures the
// others whole (their ratios pair with their own rounds' SSB).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

#include "bench/core/record_field.hpp"
#include "bench/interference/interference.hpp"

namespace hetprobe {

// The settings (config keys) two interference runs must share for their
// points to be comparable: a resumed file's and this run's, launches pooled.
inline constexpr const char* kComparableSettings[] =
    {"send_mode", "writer_side", "paper",  "load_bytes", "load_bytes_per_message",
     "rounds",    "reps",        "warmup", "gap",        "payload_writer"};

struct ResumedPoints {
  std::set<PointKey> done;
};

// Reads back `file` (records of an interference run; see open_results_for)
// for a run with this `config` (InterferenceConfig::to_json()) on `backend`.
// The file's last header must agree on what makes points comparable (send
// mode, writer side, paper, load bytes, rounds, reps, warm-up, gap, payload
// writer and check) and the
// backend, or it is a usage Error naming the setting. A point record that is
// malformed (a field missing or of the wrong type: anything `hetprobe show`
// could not print) is not counted as done: the file is refused with a usage
// Error naming FILE:LINE and the field, so that a damaged file is noticed
// rather than silently carried on.
ResumedPoints resumed_points(const ResultsFile& file, const Json& config, const std::string& backend);

// The key of a point record, read with checked access.
PointKey point_key(const RecordRef& point);

}  // namespace hetprobe
