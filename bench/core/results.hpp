// Results files: JSON Lines, one JSON object per line. Written record by
// record (each line with a single write(2) on an O_APPEND descriptor, so a
// killed process leaves every finished line whole); read back tolerating an
// incomplete last line from a run killed mid-write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/stats.hpp"
#include "bench/core/results_limits.hpp"

namespace hetprobe {

// What one results file may hold (kMaxResultsTextBytes, kMaxResultsLines,
// kMaxRecordBytes): bench/core/results_limits.json, read by every reader.

using Json = nlohmann::ordered_json;

// Where a probe hands each record as soon as it is measured.
using RecordSink = std::function<void(const Json& record)>;

class ResultsWriter {
 public:
  // Opens (creating if needed) `path` for appending. Only a regular file (or a
  // symlink to one) is accepted: a directory, device, FIFO or socket is
  // refused before it is opened, and again after (fstat), without blocking or
  // writing. Throws hetprobe::Error(ErrorKind::usage) naming the path if the
  // file cannot be opened for writing (missing directory, no permission, not
  // a regular file), or if another process holds the file's exclusive flock
  // (taken here, so two runs never append to one file). Nothing is written by
  // opening. Most callers want open_results_for() below.
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
  // Bytes in the file now (fstat of the open descriptor).
  std::uint64_t size() const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

struct ResultsFile {
  std::filesystem::path path;
  std::vector<Json> records;       // every complete, parsable line, in order
  std::vector<std::size_t> lines;  // 1-based line number of each record
  bool truncated_tail = false;     // the last line was incomplete or unparsable
  std::size_t valid_bytes = 0;     // bytes up to and including the last good '\n'

  // "FILE:LINE" of records[i], for errors about it ("PATH, record N" when
  // lines is empty: records made in this process).
  std::string place(std::size_t i) const;
  // The probe the first record (the header) names; "" when there is none.
  std::string probe() const;
};

// Reads a results file. An incomplete last line (no trailing newline, or not
// valid JSON and last) sets truncated_tail instead of failing. A bad line that
// is not the last, or a line that is not a JSON object, is a malformed input
// file: hetprobe::Error(ErrorKind::usage) naming the file and 1-based line
// number. A missing file, or one that is not a regular file, throws
// hetprobe::Error(ErrorKind::usage); failing mid-read, ErrorKind::io.
// Empty lines are skipped. A gzip-compressed file (*.jsonl.gz) is read as its
// text; one cut short, as its text up to the cut. Records of an older schema_version come back in
// the current form (record_upgrade.hpp).
ResultsFile read_results(const std::filesystem::path& path);

// Whether a file's name is a results file's: NAME.jsonl, or NAME.jsonl.gz
// (gzip-compressed; read_results takes either, by its bytes).
bool is_results_file_name(const std::filesystem::path& path);
// Whether `path` is a directory (stat(2): follows links; false where it
// cannot be read), without a std::filesystem call that throws on an odd path:
// how `show` and `model` tell a run directory from a results file.
bool is_directory(const std::filesystem::path& path);
// NAME of NAME.jsonl or NAME.jsonl.gz, without the folder (of another name,
// its stem: "run" of "run.txt").
std::string results_stem(const std::filesystem::path& path);

// The same, of results text already in memory (`where` names it in errors):
// what the Python package hands back to show's tables.
ResultsFile parse_results(const std::filesystem::path& where, const std::string& text);

// An optional value as JSON: the value, or null where there is none.
template <class T>
Json json_or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json();
}

// {n, min, p10, median, p90, p99, max, mean, stddev} of the samples (see
// stats.hpp), in their unit; null when there are none.
Json summary_json(std::span<const double> values);
// The same of a Summary computed already.
Json summary_json(const Summary& s);

// Raw timer readings as measured: {"unit", "ns_per_tick", "values": [ticks]}.
// Integers as read keep the file small and exact; ns = value * ns_per_tick.
Json raw_ticks_json(const std::string& unit, double ns_per_tick, std::span<const std::uint64_t> ticks);

// Whether a run may append to an existing results file of its probe.
enum class Resume {
  unavailable,  // the probe has no --resume: a file with results is refused
  off,          // --resume not given: refused, and the message offers it
  on,           // --resume: continued
};

// Checks, reading only and creating nothing, that a `probe` run may write its
// results to `path`: a new file in a directory that exists, an empty file,
// or (with Resume::on) a file of `probe`'s results. Anything else is a usage
// Error naming --out and the path: a directory, device, FIFO or socket;
// another probe's results ("holds notify results, not bandwidth results");
// a file that is not results; results without --resume. Returns whether the
// file already holds results. For the checks every rank agrees on before
// anything is written; open_results_for repeats them.
bool check_results_target(const std::string& probe, const std::filesystem::path& path, Resume resume);

// The results file of a `probe` run, opened for appending (on rank 0 only),
// and what it already holds. A new or empty file is fine. A file with records
// is refused (usage Error naming it) unless `resume` is on, and always when
// its first record is not a hetprobe header of `probe` (another probe's file,
// or no results file at all): appending would make it unreadable. A resumed
// file is returned as read: the caller checks its records, then drops an
// incomplete last line (drop_truncated_tail) before appending, so that a
// refused file is left as it was.
struct OpenedResults {
  ResultsWriter writer;
  ResultsFile existing;  // records already in the file (empty when new)
};
OpenedResults open_results_for(const std::string& probe, const std::filesystem::path& path, Resume resume);

// Truncates the file to file.valid_bytes so that appending continues after
// the last complete record. No-op when !file.truncated_tail.
void drop_truncated_tail(const std::filesystem::path& path, const ResultsFile& file);

}  // namespace hetprobe
