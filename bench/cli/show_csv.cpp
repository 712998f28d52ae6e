#include "bench/cli/show_csv.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

#include "base/errors.hpp"
#include "bench/core/results.hpp"

namespace hetprobe::cli {

namespace {

namespace fs = std::filesystem;

struct CsvTable {
  std::string heading;    // the results file's path, or ""
  std::string file_name;  // under --out: "TABLE.csv" or "FILE.TABLE.csv"
  const Table* table;
};

std::vector<CsvTable> tables_of(const HeadedReports& reports) {
  std::vector<CsvTable> all;
  for (const auto& [heading, report] : reports) {
    const std::string stem = heading.empty() ? "" : results_stem(heading) + ".";
    for (const Table& t : report.tables) all.push_back({heading, stem + t.key + ".csv", &t});
  }
  return all;
}

// "notify.jsonl: overhead, roundtrip; clock.jsonl: clock_batches, clock_fit", or
// "overhead, roundtrip" for one file.
std::string listed(const std::vector<CsvTable>& tables) {
  std::string text, heading;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const bool new_file = i == 0 || tables[i].heading != heading;
    heading = tables[i].heading;
    if (i > 0) text += new_file ? "; " : ", ";
    if (new_file && !heading.empty()) text += fs::path(heading).filename().string() + ": ";
    text += tables[i].table->key;
  }
  return text;
}

[[noreturn]] void refuse_several(const std::vector<CsvTable>& tables, const std::string& table_option) {
  if (!table_option.empty()) {
    std::string files;
    for (const CsvTable& t : tables) files += (files.empty() ? "" : ", ") + fs::path(t.heading).filename().string();
    throw usage_error("--format csv --table " + table_option + ": " + std::to_string(tables.size()) +
                      " files have this table (" + files +
                      "), and one CSV holds one table: give one of the files, or --out DIR to write each to its "
                      "own CSV file");
  }
  throw usage_error("--format csv: one CSV holds one table, and this shows " + std::to_string(tables.size()) + " (" +
                    listed(tables) +
                    "): give --table NAME for one of them, or --out DIR to write each to its own CSV file");
}

// The directory --out names, made if missing (not its parents).
fs::path output_directory(const std::string& out_dir) {
  const fs::path dir(out_dir);
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st))
      throw usage_error("--out " + out_dir + ": not a directory (give a directory for the CSV files)");
    return dir;
  }
  if (!fs::create_directory(dir, ec) && ec)
    throw usage_error("--out " + out_dir + ": cannot make this directory: " + ec.message());
  return dir;
}

// Every file --out would write that is there already: refused unless `force`,
// and always when it is not a regular file (a directory, a FIFO, a device),
// before anything is written.
void refuse_existing(const fs::path& dir, const std::vector<CsvTable>& tables, const std::string& out_dir, bool force) {
  std::string there;
  for (const CsvTable& t : tables) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(dir / t.file_name, ec);
    if (!fs::exists(st)) continue;
    if (!fs::is_regular_file(st))
      throw usage_error("--out " + out_dir + ": " + (dir / t.file_name).string() +
                        " is there and is not a regular file: it is never replaced");
    there += (there.empty() ? "" : ", ") + t.file_name;
  }
  if (!there.empty() && !force)
    throw usage_error("--out " + out_dir + ": " + there +
                      " exist(s) already: pass --force to replace them, or give another directory");
}

// Written beside its final name and renamed, so a failed write never leaves a
// half file under that name (nor replaces an earlier export with one).
void write_table(const fs::path& path, const Table& table) {
  const fs::path partial = path.string() + ".partial";
  std::FILE* f = std::fopen(partial.c_str(), "wb");
  if (f == nullptr) throw Error(ErrorKind::io, "cannot write " + path.string() + ": " + std::strerror(errno));
  print_csv(f, table);
  const bool written = std::ferror(f) == 0;
  const int saved = errno;
  if (std::fclose(f) != 0 || !written) {
    const int why = written ? errno : saved;
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw Error(ErrorKind::io, "cannot write " + path.string() + ": " + std::strerror(why));
  }
  std::error_code ec;
  fs::rename(partial, path, ec);
  if (ec) throw Error(ErrorKind::io, "cannot write " + path.string() + ": " + ec.message());
}

}  // namespace

std::vector<std::string> show_csv(std::FILE* out, const HeadedReports& reports, const std::string& out_dir,
                                  const std::string& table_option, bool force) {
  const std::vector<CsvTable> tables = tables_of(reports);
  if (out_dir.empty()) {
    if (tables.size() > 1) refuse_several(tables, table_option);
    if (tables.size() == 1) print_csv(out, *tables.front().table);
    return {};
  }
  std::map<std::string, std::string> writer_of;  // file name -> the results file it comes from
  for (const CsvTable& t : tables)
    if (auto [it, fresh] = writer_of.emplace(t.file_name, t.heading); !fresh)
      throw usage_error("--out " + out_dir + ": " + it->second + " and " + t.heading + " would both write " +
                        t.file_name + ": show them one at a time");
  const fs::path dir = output_directory(out_dir);
  refuse_existing(dir, tables, out_dir, force);
  std::vector<std::string> written;
  for (const CsvTable& t : tables) {
    write_table(dir / t.file_name, *t.table);
    written.push_back((dir / t.file_name).string());
  }
  return written;
}

}  // namespace hetprobe::cli
