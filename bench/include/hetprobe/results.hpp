// Results files: JSON Lines, one JSON object per line. Written record by
// record (each line with a single write(2) on an O_APPEND descriptor, so a
// killed process leaves every finished line whole); read back tolerating an
// incomplete last line from a run killed mid-write.
#pragma once

#include <cstddef>
#include <filesystem>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace hetprobe {

using Json = nlohmann::ordered_json;

// Where a probe hands each record as soon as it is measured.
using RecordSink = std::function<void(const Json& record)>;

class ResultsWriter {
 public:
  // Opens (creating if needed) `path` for appending. Throws
  // hetprobe::Error(ErrorKind::usage) with the path and strerror if the file
  // cannot be opened for writing (missing directory, no permission, a
  // directory), or if another process holds the file's exclusive flock (taken
  // here, so two runs never append to one file). Nothing is written by opening.
  explicit ResultsWriter(const std::filesystem::path& path);
  ResultsWriter(ResultsWriter&&) noexcept;
  ResultsWriter& operator=(ResultsWriter&&) noexcept;
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;
  ~ResultsWriter();

  // Appends record.dump() + '\n' with one write(2) (retrying short writes and
  // EINTR). Throws hetprobe::Error(ErrorKind::io) on failure. NaN/inf must
  // not reach here: callers put null instead.
  void write(const Json& record);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

struct ResultsFile {
  std::vector<Json> records;   // every complete, parsable line, in order
  bool truncated_tail = false; // the last line was incomplete or unparsable
  std::size_t valid_bytes = 0; // bytes up to and including the last good '\n'
};

// Reads a results file. An incomplete last line (no trailing newline, or not
// valid JSON and last) sets truncated_tail instead of failing. A bad line that
// is not the last, or a line that is not a JSON object, throws
// hetprobe::Error(ErrorKind::io) naming the file and 1-based line number.
// A missing or unreadable file throws hetprobe::Error(ErrorKind::usage).
// Empty lines are skipped.
ResultsFile read_results(const std::filesystem::path& path);

// {n, min, p10, median, p90, p99, max, mean, stddev} of the samples (see
// stats.hpp), in their unit; null when there are none.
Json summary_json(std::span<const double> values);

// Raw timer readings as measured: {"unit", "ns_per_tick", "values": [ticks]}.
// Integers as read keep the file small and exact; ns = value * ns_per_tick.
Json raw_ticks_json(const std::string& unit, double ns_per_tick, std::span<const std::uint64_t> ticks);

// Truncates the file to file.valid_bytes so that appending continues after
// the last complete record. No-op when !file.truncated_tail.
void drop_truncated_tail(const std::filesystem::path& path, const ResultsFile& file);

}  // namespace hetprobe
