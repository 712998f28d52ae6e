// What `hetprobe show` prints for a results file: the Report (table.hpp) of
// whichever probe wrote it, every field read with checked access, so a
// malformed record is a usage Error naming FILE:LINE and the field.
#pragma once

#include <string>
#include <vector>

#include "bench/core/record_field.hpp"
#include "bench/core/results.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

// The report of a results file, chosen by the probe its header names
// (interference, notify, clock, halo, bandwidth). A file with no header, or a
// header of another probe, is a usage Error naming the file.
Report results_report(const ResultsFile& file);

// The checks results_report makes, for each run in `file` (a header and the
// records up to the next header: a merged file holds runs of several
// probes): a usage Error naming FILE:LINE and the field of the first
// malformed record. What `hetprobe merge` asks of its inputs, as show does.
void check_results(const ResultsFile& file);

// One report per probe (each reads file.records; records[0] is a header).
Report interference_report(const ResultsFile& file);
Report notify_report(const ResultsFile& file);
Report clock_report(const ResultsFile& file);
Report halo_report(const ResultsFile& file);
Report bandwidth_report(const ResultsFile& file);

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

// "warning (LABEL): ..." for each warning of a record.
void add_record_warnings(const RecordRef& record, const std::string& label, std::vector<std::string>& notes);

}  // namespace hetprobe
