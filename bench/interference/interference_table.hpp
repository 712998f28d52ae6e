// The table of an interference run: printed row by row as points finish (so
// a long or killed run shows what it has), or as a whole from a results file
// (interference_report). Both read the records with
// checked access.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/core/message_path.hpp"
#include "bench/core/record_field.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

Report interference_report(const ResultsFile& file);

class InterferenceTable {
 public:
  explicit InterferenceTable(std::FILE* out) : out_(out) {}
  void print_heading(const Json& header);
  void print_row(const Json& point);
  // The harness's own cost beside the smallest median it timed.
  void print_footer(const Json& header);

 private:
  std::FILE* out_;
  Table table_;
  MessagePath path_;  // from the header: the live table's pair and link
};

// The columns every interference table starts with, a point's key: its
// message size (text, and bytes as data), access and layout; and their cells.
std::vector<Column> point_key_columns();
std::vector<Json> point_key_cells(std::uint64_t size, const std::string& access, const std::string& layout);

// The table's columns and the lines about the run, from its header.
Table interference_table(const RecordRef& header, std::vector<std::string>& about);
// The GPU traffic during a point's sends, GB/s, or null: the load's (files
// from before the load kinds: the sender writer's, else the receiver's over
// its post phase).
Json traffic_gbs(const RecordRef& point);
// A point's cells, in the columns' order.
std::vector<Json> interference_row(const RecordRef& point);
// The harness line under the table: the empty timed region's cost at the
// point with the smallest median send time ("" when there are no rows).
std::string harness_note(const RecordRef& header, const Table& table);

}  // namespace hetprobe
