// A run as launches: each results file's segments (a header and the records
// after it; a resumed header continues its file's launch) grouped into the
// launches of one command (launch_identity: a series), each named by its step
// (its file's name: "interference" of interference.launch2.jsonl). The one
// place that says which records are one launch of which step: `show --pool`,
// the report and Python (through hetprobe._core) read it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/core/results.hpp"

namespace hetprobe {

// A launch's step and number from its name or its file's (.jsonl, .jsonl.gz,
// .txt, .log; no folder): "interference.launch2.jsonl" is ("interference", 2),
// "interference-rate.jsonl" ("interference-rate", 1); characterize names a
// step's launches so (launch_file_stem).
struct StepLaunch {
  std::string step;
  int launch = 1;
};
StepLaunch split_launch(const std::filesystem::path& file);
// The stem of a step's launch's files: "interference" for launch 1, then
// "interference.launch2", ...
std::string launch_file_stem(const std::string& step, int launch);

// A record of the files handed in: files[file].records[index].
struct RecordAt {
  std::size_t file = 0, index = 0;
  auto operator<=>(const RecordAt&) const = default;
};

struct Launch {
  std::string step;        // of the file its header is in
  std::size_t series = 0;  // launches of one command share one: 0, 1, ... in the order first seen
  std::size_t number = 0;  // 1, 2, ... within its series, in the order given
  std::size_t file = 0;    // files[file]
  std::size_t begin = 0;   // its header's index in that file's records
  std::size_t end = 0;     // one past its last record (a resumed segment's included)
};

// The launches in `files` of `probe`, in the order given (a segment of
// another probe is left out). Records before a file's first header belong to
// no launch.
std::vector<Launch> run_launches(const std::vector<ResultsFile>& files, const std::string& probe);

}  // namespace hetprobe
