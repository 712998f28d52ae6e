// The interference points of a run, pooled over launches (the aggregation
// stage of bench/aggregate/): one aggregate per step's series and point, with
// the paired ratio to SSB and its interval and effect, the cold ÷ warm ratio,
// the absolute medians with their intervals, the traffic, and the launches
// and records it came from. `show --pool`, the report and Python
// (Results.interference_ratios, through hetprobe._core) read these; none
// pools on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/aggregate/pooled_reading.hpp"
#include "bench/aggregate/run_launches.hpp"
#include "bench/interference/interference.hpp"

namespace hetprobe {

struct InterferenceAggregate {
  std::string step;            // the step of its series' first launch
  std::size_t series = 0;      // run_launches' series
  Json host, backend, device;  // of the first launch's header (device: its name)
  PointKey key;
  Json load_rate;                                  // the rate's label as the first launch's record has it (null: SSB)
  Json send_mode, writer_side;                     // as the records wrote them
  std::string gap_label = "0", gap_kind = "none";  // --gap's label and kind ("none": back to back)
  std::optional<double> gap_bytes;                 // a sweep's
  std::vector<std::size_t> launches;               // the launch numbers it was measured in
  std::vector<RecordAt> records;                   // each of those launches' record (none: read from a pooled file)
  std::vector<std::string> launch_files;           // read from a pooled file: each launch's file, as it names them
  std::optional<std::int64_t> rounds, reps;        // of the first launch
  std::int64_t n = 0;                              // timed sends, all launches together
  std::string status = "ok";                       // the first status that is not "ok"
  PooledReading ratio_to_ssb;                      // none for SSB
  PooledReading cold_over_warm;                    // with a --gap
  PooledReading send_time_ns, ssb_send_time_ns, warm_send_time_ns;
  PooledReading traffic_gbs;  // GB/s the loads moved during the sends
};

// Every interference point of `files`, pooled per series (launches of one
// command) and point, in the order first seen. A point twice in one launch
// counts once (its first record). A malformed point is a usage Error naming
// FILE:LINE and the field.
std::vector<InterferenceAggregate> aggregate_interference(const std::vector<ResultsFile>& files);

// The aggregate as a record of the results schema ("record": "aggregate",
// docs/results-schema.md), its files named.
Json aggregate_record(const InterferenceAggregate& a, const std::vector<ResultsFile>& files);

// A pooled file (`show --pool --records`) holds aggregate records after the
// first launch's header, which names the launches in "pooled_launches".
// aggregate_interference reads such files' aggregates as written (with no
// records of their own: their launches are not there), and refuses them
// mixed with launches.
bool holds_aggregates(const ResultsFile& file);
InterferenceAggregate aggregate_of_record(const RecordRef& r);
Json pooled_header(const std::vector<ResultsFile>& launches);
// The launches a pooled file's header names (none: not a pooled file's).
std::vector<std::string> pooled_launch_names(const Json& header);

}  // namespace hetprobe
