// The tables `hetprobe show` and the probes print, kept apart from how they
// are printed: each probe fills Tables (columns named with their units, rows
// of JSON cells) and one of four printers writes them (text for a terminal,
// CSV, JSON, Markdown), as google/benchmark keeps reporters apart from runs.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "base/enum_table.hpp"
#include "bench/core/results.hpp"

namespace hetprobe {

enum class TableFormat { table, csv, json, markdown };
inline constexpr EnumTable<TableFormat, 4> kTableFormatNames{"table format",
                                                             {{{TableFormat::table, "table"},
                                                               {TableFormat::csv, "csv"},
                                                               {TableFormat::json, "json"},
                                                               {TableFormat::markdown, "markdown"}}}};

struct Column {
  enum class Align { left, right };
  // Where a column appears: a text column can join several fields for the eye
  // ("write x2 @0.5") while CSV and JSON get each field as its own column.
  enum class Shown { everywhere, text, data };
  std::string name;  // with its unit: "median_us", "size_bytes"; counts and ratios need none ("n", "vs_SSB")
  int width = 0;     // text: at least this many characters (the name's length at least)
  Align align = Align::right;
  int decimals = -1;  // text and Markdown: digits after the point; -1: as the number is
  Shown shown = Shown::everywhere;
  int gap = 1;  // text: spaces before it
};

struct Table {
  std::string key = {};                 // the table's name in JSON and for --table: "roundtrip"
  std::vector<std::string> title = {};  // lines above it (text: "## ..."); may be empty
  std::vector<Column> columns = {};
  std::vector<std::vector<Json>> rows = {};  // one cell per column: a number, a string, or null ("-")
  std::vector<std::string> notes = {};       // lines below it (text: "# ...")
  bool vertical = false;                     // text: each row as "name value" lines (a record with many fields)
};

// What one results file shows: lines about the run, then its tables.
struct Report {
  std::vector<std::string> about = {};  // text: "# ..." lines before the tables
  std::vector<Table> tables = {};
};

// Prints a report. Text: the about lines, then each table with its title and
// notes. JSON: one object keyed by table key, each an array of row objects
// (numbers as recorded). CSV: its one table (print_csv; a usage Error for a
// report of several, which is never passed off as one CSV). Markdown: GitHub
// pipe tables. A report with no tables says so (text, Markdown).
void print_report(std::FILE* out, TableFormat format, const Report& report);

// A report's tables as `show --format json` prints them: {table key: [row
// objects of its data columns]}. What the Python package's tables are views of.
Json report_json(const Report& report);

// Several reports, each under its heading (a run directory's files): text and
// Markdown one after the other, JSON one object keyed by heading, CSV as above.
void print_reports(std::FILE* out, TableFormat format, const std::vector<std::pair<std::string, Report>>& reports);

// One table as an RFC 4180 CSV document: CRLF, a header row of its data
// columns, then its rows (numbers as recorded, null as an empty field).
void print_csv(std::FILE* out, const Table& table);

// Text, row by row, for a run that prints points as they finish.
void print_text_header(std::FILE* out, const Table& table);
void print_text_row(std::FILE* out, const Table& table, const std::vector<Json>& row);

// A cell's text in the text and Markdown formats: "-" for null.
std::string cell_text(const Column& column, const Json& cell);

}  // namespace hetprobe
