// Every probe, once: its subcommand's name, how to make one, and what it makes
// of records. The CLI's
// subcommands, `show`'s dispatch, the progress labels and the Python module's
// in-process probes all read this table, so adding a probe is its folder, one
// line in probe_table.cpp and its schema entry.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench/cli/probe.hpp"

namespace hetprobe::cli {

struct ProbeEntry {
  const char* key;                   // the subcommand, and its records' "probe"
  std::unique_ptr<Probe> (*make)();  // a probe for one run, its options at their defaults
  bool in_process;                   // single process: the Python module runs it in its own
  // The tables of one run's records (`show`, and a run's own print). Reads
  // every field with checked access: a malformed record is a usage Error
  // naming FILE:LINE and the field.
  Report (*report)(const ResultsFile& file);
  // One line naming a record, for the progress lines; "" for a record that
  // is no progress item.
  std::string (*record_label)(const Json& record);
  // The pooled table of launches of one command (`show --pool`), or null:
  // the probe's files are not pooled.
  Report (*pooled)(const std::vector<ResultsFile>& files);
  // The same launches pooled as records (`show --pool --records`): a header
  // and the aggregates, which `show` reads back as its pooled table; or null.
  std::vector<Json> (*pooled_records)(const std::vector<ResultsFile>& files);
};

std::span<const ProbeEntry> probe_table();
// The entry of `key`, or null.
const ProbeEntry* find_probe(const std::string& key);

}  // namespace hetprobe::cli

namespace hetprobe {

// What `hetprobe show` prints for a results file of one run: the report of the
// probe its header names. A usage Error for an empty file, a file that is no
// hetprobe results, a probe show does not know, or another probe's records
// appended (naming FILE:LINE).
Report results_report(const ResultsFile& file);
// The checks results_report makes, for each run in `file` (a header and the
// records up to the next header: a merged file holds runs of several probes),
// as `hetprobe merge` asks them of its inputs.
void check_results(const ResultsFile& file);
// The probes' keys for messages and help, "interference, notify, ... or gpus";
// with `pooled_only`, those `show --pool` pools ("interference or halo").
std::string probe_list(bool pooled_only = false);
// Whether `show --pool` pools results files of `probe` (interference, halo).
bool is_pooled_probe(const std::string& probe);
// The pooled table of launches of one command (`show --pool`): the first
// file's probe decides which; a usage Error for none, or as the probe's own
// pooling says (interference_launches.hpp, halo_launches.hpp).
Report pooled_report(const std::vector<ResultsFile>& files);
// The records of launches of one command pooled (`show --pool --records`),
// none where their probe writes no pooled records.
std::vector<Json> pooled_records(const std::vector<ResultsFile>& files);
// One line naming a record, for progress output: its probe's record_label,
// or the record's kind where the table knows no probe of its "probe".
std::string record_label(const Json& record);

}  // namespace hetprobe
