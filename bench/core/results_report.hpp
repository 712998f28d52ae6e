// What every probe's report (table.hpp) shares: the lines about a run, its
// warnings, and checked access to every field, so a malformed record is a
// usage Error naming FILE:LINE and the field. Which probe's report a file gets
// is bench/cli/probe_table.hpp's results_report.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/number_text.hpp"
#include "bench/core/record_field.hpp"
#include "bench/core/results.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

// Records made in this process, as a ResultsFile whose places read "this
// run's records, record N" (for the tables a probe prints at the end of a run).
ResultsFile records_of_this_run(const Json& header, const std::vector<Json>& records);

// The "hetprobe PROBE: DEVICE (BACKEND) on HOST" line of a header, and a
// "warning: ..." line for each of its warnings (the run's conditions).
std::string device_line(const RecordRef& header, const std::string& probe);
std::vector<std::string> header_warnings(const ResultsFile& file);

// "MPI: Open MPI 4.1.6, pml ob1, btl self,tcp,vader, single copy none
// (environment OMPI_MCA_btl_vader_single_copy_mechanism)" from the header's
// mpi.transport; none for files from before it.
std::vector<std::string> mpi_transport_about(const RecordRef& header);

// The lines notify and clock reports start with: the device line with the
// device timer's tick and the host clock, then the header's warnings.
std::vector<std::string> device_timer_about(const ResultsFile& file, const char* probe);

// Adds `table` to the report unless it has no rows.
void add_if_nonempty(Report& report, Table table);

// The record's kind ("record" field), or "" where it has none.
std::string record_kind(const RecordRef& record);

// A record's interval field, [low, high]; none for anything else (no
// interval: under the rounds or launches it needs).
std::optional<Interval> interval_of(const Json& ci);
// It as the tables print it (base/number_text.hpp's interval_text).
std::string interval_text(const Json& ci);

// "warning (LABEL): ..." for each warning of a record.
void add_record_warnings(const RecordRef& record, const std::string& label, std::vector<std::string>& notes);

// A row of `table` for each record of `kind` after the header, made by
// `row_of(record)`; each record's warnings go under the table, named by the
// probe's `label` (its record_label).
template <class RowOf>
void add_rows_of_kind(Table& table, const ResultsFile& file, std::string_view kind,
                      std::string (*label)(const Json& record), RowOf row_of) {
  for (std::size_t i = 1; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    if (record_kind(r) != kind) continue;
    table.rows.push_back(row_of(r));
    add_record_warnings(r, label(r.json), table.notes);
  }
}

}  // namespace hetprobe
