// `hetprobe show PATH...`: the tables of results files (interference, notify,
// clock, halo, bandwidth), e.g. of a run that was killed and resumed, or one
// from another node; a directory (a characterize run) shows every results
// file in it, each under its name. --format table|csv|json|markdown; CSV
// holds one table, so several go to one file each (--out DIR, show_csv.hpp).
// Tolerates an incomplete last line (a killed run).

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "base/errors.hpp"
#include "base/text_list.hpp"
#include "bench/aggregate/run_launches.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/cli/probe_table.hpp"
#include "bench/cli/show_csv.hpp"
#include "bench/core/launches.hpp"
#include "bench/core/results_report.hpp"

namespace hetprobe::cli {

namespace {

namespace fs = std::filesystem;

struct Options {
  std::vector<std::string> paths;
  std::optional<std::string> format;  // not given: table, or csv with --out ("" is refused)
  std::string table;
  std::string out_dir;
  bool force = false;
  bool pool = false;
  std::string records;  // --records: the pooled interference points, written as a results file
};

// A directory's results files (*.jsonl, *.jsonl.gz), by name; no std::filesystem call
// that throws on an odd path.
std::vector<fs::path> files_in(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (is_results_file_name(it->path())) out.push_back(it->path());
  if (ec) throw usage_error("cannot list " + dir.string() + ": " + ec.message());
  std::sort(out.begin(), out.end());
  if (out.empty()) throw usage_error(dir.string() + " holds no results files (*.jsonl, *.jsonl.gz)");
  return out;
}

// Files grouped into launches of one command (their probe and their first
// header's launch_identity), the groups in the order of their steps.
std::vector<std::vector<ResultsFile>> launches_by_command(std::vector<ResultsFile> files) {
  std::vector<std::vector<ResultsFile>> groups;
  std::map<std::string, std::size_t> group_of;
  for (ResultsFile& f : files) {
    const std::string key = f.probe() + " " + launch_identity(f.records.front()).dump();
    const auto [it, fresh] = group_of.emplace(key, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(std::move(f));
  }
  // In the order of their steps' names: a step before its variants ("interference", then "interference-cold").
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    return split_launch(a.front().path).step < split_launch(b.front().path).step;
  });
  return groups;
}

// The report of one file, its tables narrowed to --table. In a run
// directory a file with no records yet (a probe stopped before its header) is
// skipped with a note; given by name, it is an error.
// With --table, only that table; `names` gathers every table the file had.
std::optional<Report> report_of(const fs::path& path, const std::string& table, bool in_directory,
                                std::set<std::string>& names) {
  const ResultsFile file = read_results(path);
  if (file.records.empty() && in_directory) {
    std::fprintf(stderr, "hetprobe show: skipped %s: no results in it\n", path.c_str());
    return std::nullopt;
  }
  Report report = results_report(file);
  if (file.truncated_tail)
    std::fprintf(stderr, "hetprobe show: ignored an incomplete last line of %s (a killed run)\n", path.c_str());
  for (const Table& t : report.tables) names.insert(t.key);
  if (!table.empty()) std::erase_if(report.tables, [&](const Table& t) { return t.key != table; });
  return report;
}

// --records: each interference command's aggregates after its first launch's
// header (pooled_header), written beside the final name and renamed, so a
// failed write leaves no half file; an existing file is replaced only with
// --force, and never one that is not a regular file (a link, a FIFO).
void write_pooled_records(const std::vector<std::vector<ResultsFile>>& commands, const Options& o) {
  const fs::path path = o.records;
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw usage_error("--records " + o.records + " is there and is not a regular file: it is never replaced");
  if (fs::exists(st) && !o.force)
    throw usage_error("--records " + o.records + " exists already: pass --force to replace it, or name another file");
  std::vector<Json> lines;
  for (const std::vector<ResultsFile>& launches : commands)
    for (Json& line : pooled_records(launches)) lines.push_back(std::move(line));
  if (lines.empty())
    throw usage_error("--records: none of these launches' probes writes pooled records (interference does)");
  const fs::path partial = path.string() + ".partial";
  fs::remove(partial, ec);
  {
    ResultsWriter writer(partial);
    for (const Json& line : lines) writer.write(line);
  }
  fs::rename(partial, path, ec);
  if (ec) throw Error(ErrorKind::io, "cannot write " + o.records + ": " + ec.message());
  std::fprintf(stderr, "hetprobe show: wrote %s\n", o.records.c_str());
}

// Prints the reports to stdout, or with --out writes their CSV files and names them on stderr.
void show(TableFormat format, const HeadedReports& reports, const Options& o) {
  if (format != TableFormat::csv) return print_reports(stdout, format, reports);
  for (const std::string& written : show_csv(stdout, reports, o.out_dir, o.table, o.force))
    std::fprintf(stderr, "hetprobe show: wrote %s\n", written.c_str());
}

int run(const Options& o) {
  const TableFormat format = parse_enum("--format", o.format ? *o.format : (o.out_dir.empty() ? "table" : "csv"),
                                        kTableFormatNames);
  if (!o.records.empty() && !o.pool)
    throw usage_error("--records " + o.records + " writes the pooled points: with --pool");
  if (!o.out_dir.empty() && format != TableFormat::csv)
    throw usage_error("--out " + o.out_dir + " writes CSV files (one per table): not with --format " + *o.format);
  std::vector<std::pair<fs::path, bool>> files;  // and whether it came from a directory
  bool headings = o.paths.size() > 1;
  for (const std::string& p : o.paths) {
    if (!hetprobe::is_directory(p)) {
      files.emplace_back(p, false);
      continue;
    }
    for (const fs::path& f : files_in(p)) files.emplace_back(f, true);
    headings = true;
  }
  if (o.pool) {  // the interference or halo files as launches of one command
    if (!o.table.empty())
      throw usage_error("--table " + o.table + " with --pool: --pool shows one table, the launches pooled");
    std::vector<ResultsFile> launches;
    std::map<std::string, std::string> seen;  // a launch's canonical path and its header, to the name given
    for (const auto& [f, in_directory] : files) {
      ResultsFile file = read_results(f);
      if (file.records.empty() || !is_pooled_probe(file.probe())) {
        if (!in_directory) throw usage_error("--pool: " + f.string() + " is not a results file of " + probe_list(true));
        continue;
      }
      // One file is one launch: the same file twice, by its path or by its header (a copy), is refused.
      std::error_code ec;
      const fs::path canonical = fs::weakly_canonical(f, ec);
      for (const std::string& key :
           {"path " + (ec ? f.string() : canonical.string()), "header " + file.records.front().dump()})
        if (const auto [it, fresh] = seen.emplace(key, f.string()); !fresh)
          throw usage_error("--pool: " + f.string() + " is the launch " + it->second + " is (the same " +
                            key.substr(0, key.find(' ')) + "): one file is one launch, give each once");
      launches.push_back(std::move(file));
    }
    if (o.paths.size() != 1 || !hetprobe::is_directory(o.paths.front())) {
      const Report report = pooled_report(launches);
      if (!o.records.empty()) write_pooled_records({launches}, o);
      show(format, {{"", report}}, o);
      return 0;
    }
    // A run directory: each step's launches (launches of one command, launch_identity) pooled apart.
    HeadedReports reports;
    const std::vector<std::vector<ResultsFile>> commands = launches_by_command(std::move(launches));
    for (const std::vector<ResultsFile>& step : commands)
      reports.emplace_back(split_launch(step.front().path).step + " (" + std::to_string(step.size()) + " launch" +
                               (step.size() == 1 ? "" : "es") + ")",
                           pooled_report(step));
    if (!o.records.empty()) write_pooled_records(commands, o);
    show(format, reports, o);
    return 0;
  }
  // Every file is read before anything is printed: a malformed one is named
  // (FILE:LINE: field ...) and nothing half-printed precedes it.
  HeadedReports reports;
  std::set<std::string> names;  // the tables these files have, named when --table is none of them
  for (const auto& [f, in_directory] : files)
    if (auto report = report_of(f, o.table, in_directory, names);
        report && (o.table.empty() || !report->tables.empty()))
      reports.emplace_back(headings ? f.string() : "", std::move(*report));
  if (!o.table.empty() && reports.empty())
    throw usage_error("--table " + o.table + ": no such table in these files (theirs: " + comma_list(names) + ")");
  show(format, reports, o);
  return 0;
}

}  // namespace

CommandFn add_show_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("show", "Print the tables of results files (JSON Lines) of " + probe_list() +
                                               ", or of every results file in a run directory (hetprobe "
                                               "characterize's)");
  c->add_option("path", o->paths, "Results files (*.jsonl, or gzip-compressed *.jsonl.gz), or directories of them")
      ->required();
  c->add_option("--format", o->format,
                "table (for reading; the default), csv (RFC 4180: one table, a header row; several need "
                "--table or --out), json (one document: tables by name, or files by name when several), "
                "markdown (GitHub pipe tables)");
  c->add_option("--table", o->table,
                "Only this table, by the name --format json gives it (interference, halo, bandwidth, "
                "roundtrip, ...; a name the files lack is refused with the names they have)");
  c->add_option("--out", o->out_dir,
                "Write each table as a CSV file into this directory (made if missing): TABLE.csv, or "
                "FILE.TABLE.csv when several results files are shown (implies --format csv); an existing CSV "
                "file is replaced only with --force");
  c->add_flag("--force", o->force,
              "With --out: replace CSV files that exist (as merge's --overwrite); with --records, its file");
  c->add_flag("--pool", o->pool,
              "Pool the " + probe_list(true) +
                  " files given as launches of one command (of a run directory, each step's launches apart): per "
                  "point, each launch's "
                  "ratio to SSB (per halo setup, its paired speed-up over the "
                  "strongest baseline), their median and, from 3 launches, a 95% interval from the spread "
                  "between launches");
  c->add_option("--records", o->records,
                "With --pool: also write the pooled interference points as a results file (each command's first "
                "launch's header, naming the launches in pooled_launches, then an aggregate record per point), "
                "which show, merge and hetprobe.load read as any results file");
  return [o](const std::vector<std::string>&) { return run(*o); };
}

}  // namespace hetprobe::cli
