// `hetprobe show PATH...`: the tables of results files (interference, notify,
// clock, halo, bandwidth), e.g. of a run that was killed and resumed, or one
// from another node; a directory (a characterize run) shows every results
// file in it, each under its name. --format table|csv|json|markdown.
// Tolerates an incomplete last line (a killed run).
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/core/errors.hpp"
#include "bench/core/results_report.hpp"
#include "bench/interference/interference_launches.hpp"

namespace hetprobe::cli {

namespace {

namespace fs = std::filesystem;

struct Options {
  std::vector<std::string> paths;
  std::string format = "table";
  std::string table;
  bool pool = false;
};

// A directory's results files (*.jsonl), by name; no std::filesystem call
// that throws on an odd path.
std::vector<fs::path> files_in(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".jsonl") out.push_back(it->path());
  if (ec) throw usage_error("cannot list " + dir.string() + ": " + ec.message());
  std::sort(out.begin(), out.end());
  if (out.empty()) throw usage_error(dir.string() + " holds no results files (*.jsonl)");
  return out;
}

// The report of one file, its tables narrowed to --table. In a run
// directory a file with no records yet (a probe stopped before its header) is
// skipped with a note; given by name, it is an error.
std::optional<Report> report_of(const fs::path& path, const std::string& table, bool in_directory) {
  const ResultsFile file = read_results(path);
  if (file.records.empty() && in_directory) {
    std::fprintf(stderr, "hetprobe show: skipped %s: no results in it\n", path.c_str());
    return std::nullopt;
  }
  Report report = results_report(file);
  if (file.truncated_tail)
    std::fprintf(stderr, "hetprobe show: ignored an incomplete last line of %s (a killed run)\n", path.c_str());
  if (!table.empty()) std::erase_if(report.tables, [&](const Table& t) { return t.key != table; });
  return report;
}

bool is_directory(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

int run(const Options& o) {
  const TableFormat format = parse_enum("--format", o.format, kTableFormatNames);
  std::vector<std::pair<fs::path, bool>> files;  // and whether it came from a directory
  bool headings = o.paths.size() > 1;
  for (const std::string& p : o.paths) {
    if (!is_directory(p)) {
      files.emplace_back(p, false);
      continue;
    }
    for (const fs::path& f : files_in(p)) files.emplace_back(f, true);
    headings = true;
  }
  if (o.pool) {  // the interference files as launches of one command
    std::vector<ResultsFile> launches;
    for (const auto& [f, in_directory] : files) {
      ResultsFile file = read_results(f);
      if (!file.records.empty() && file.probe() == "interference") launches.push_back(std::move(file));
      else if (!in_directory) throw usage_error("--pool: " + f.string() + " is not an interference results file");
    }
    print_report(stdout, format, interference_launches_report(launches));
    return 0;
  }
  // Every file is read before anything is printed: a malformed one is named
  // (FILE:LINE: field ...) and nothing half-printed precedes it.
  std::vector<std::pair<std::string, Report>> reports;
  for (const auto& [f, in_directory] : files)
    if (auto report = report_of(f, o.table, in_directory); report && (o.table.empty() || !report->tables.empty()))
      reports.emplace_back(headings ? f.string() : "", std::move(*report));
  if (!o.table.empty() && reports.empty())
    throw usage_error("--table " + o.table +
                      ": no such table in these files (tables: interference, overhead, "
                      "roundtrip, mechanisms, clock_batches, clock_fit, halo, bandwidth)");
  print_reports(stdout, format, reports);
  return 0;
}

}  // namespace

CommandFn add_show_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("show",
                                   "Print the tables of results files (JSON Lines) of interference, notify, "
                                   "clock, halo or bandwidth, or of every results file in a run directory "
                                   "(hetprobe characterize's)");
  c->add_option("path", o->paths, "Results files, or directories of them")->required();
  c->add_option("--format", o->format,
                "table (for reading), csv (RFC 4180, a header row per table), json (one "
                "document: tables by name, or files by name when several), markdown (GitHub pipe tables)")
      ->capture_default_str();
  c->add_option("--table", o->table,
                "Only this table: interference, overhead, roundtrip, mechanisms, clock_batches, "
                "clock_fit, halo, bandwidth (one CSV document when only one file has it)");
  c->add_flag("--pool", o->pool,
              "Pool the interference files given (or in the directories given) as launches of one command: "
              "per point, each launch's ratio to SSB, their median and, from 3 launches, a 95% interval from "
              "the spread between launches");
  return [o](const std::vector<std::string>&) { return run(*o); };
}

}  // namespace hetprobe::cli
