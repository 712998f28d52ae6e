// `hetprobe show --format csv`. A CSV document holds one table, so a stream of
// several tables is never passed off as one: one table goes to standard
// output; several go to one file each (--out DIR), or --table picks one.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "bench/core/table.hpp"

namespace hetprobe::cli {

// Each shown results file's report under its heading: the file's path, or ""
// when only one file (or one pooled report) is shown.
using HeadedReports = std::vector<std::pair<std::string, Report>>;

// Without `out_dir`: prints the one table of `reports` to `out`, or throws a
// usage Error that lists the tables and the two ways to choose (`table_option`,
// the --table given, if any, names the files that have it). With `out_dir`:
// writes each table to out_dir/TABLE.csv (no heading) or out_dir/FILE.TABLE.csv
// (FILE: the results file's name less .jsonl), making out_dir if missing, and
// returns the paths written. A file there already is replaced only with
// `force`, and never when it is not a regular file. Every usage Error comes
// before anything is written.
std::vector<std::string> show_csv(std::FILE* out, const HeadedReports& reports, const std::string& out_dir,
                                  const std::string& table_option, bool force = false);

}  // namespace hetprobe::cli
