#include "bench/cli/probe_table.hpp"

#include <algorithm>

#include "base/errors.hpp"
#include "base/text_list.hpp"
#include "bench/bandwidth/bandwidth_table.hpp"
#include "bench/clock/clock_table.hpp"
#include "bench/core/results_report.hpp"
#include "bench/gpus/gpus_table.hpp"
#include "bench/halo/halo_launches.hpp"
#include "bench/halo/halo_record.hpp"
#include "bench/interference/interference_launches.hpp"
#include "bench/interference/interference_run.hpp"
#include "bench/interference/interference_table.hpp"
#include "bench/notify/notify_table.hpp"
#include "bench/toy/toy_table.hpp"

namespace hetprobe::cli {

// Each defined in its probe's folder (bench/<probe>/<probe>_command.cpp).
std::unique_ptr<Probe> make_interference_probe();
std::unique_ptr<Probe> make_notify_probe();
std::unique_ptr<Probe> make_clock_probe();
std::unique_ptr<Probe> make_halo_probe();
std::unique_ptr<Probe> make_bandwidth_probe();
std::unique_ptr<Probe> make_gpus_probe();
std::unique_ptr<Probe> make_toy_probe();

namespace {
constexpr ProbeEntry kProbes[] = {
    {"interference", make_interference_probe, false, interference_report, interference_record_label,
     interference_launches_report, interference_pooled_records},
    {"notify", make_notify_probe, true, notify_report, notify_record_label, nullptr, nullptr},
    {"clock", make_clock_probe, true, clock_report, clock_record_label, nullptr, nullptr},
    {"halo", make_halo_probe, false, halo_report, halo_record_label, halo_launches_report, nullptr},
    {"bandwidth", make_bandwidth_probe, false, bandwidth_report, bandwidth_record_label, nullptr, nullptr},
    {"gpus", make_gpus_probe, false, gpus_report, gpus_record_label, nullptr, nullptr},
    {"toy", make_toy_probe, true, toy_report, toy_record_label, nullptr, nullptr},
};
}  // namespace

std::span<const ProbeEntry> probe_table() { return kProbes; }

const ProbeEntry* find_probe(const std::string& key) {
  const auto* e = std::find_if(std::begin(kProbes), std::end(kProbes),
                               [&](const ProbeEntry& p) { return key == p.key; });
  return e == std::end(kProbes) ? nullptr : e;
}

}  // namespace hetprobe::cli

namespace hetprobe {

std::string probe_list(bool pooled_only) {
  std::vector<std::string> keys;
  for (const cli::ProbeEntry& e : cli::probe_table())
    if (!pooled_only || e.pooled != nullptr) keys.emplace_back(e.key);
  return or_list(keys);
}

bool is_pooled_probe(const std::string& probe) {
  const cli::ProbeEntry* entry = cli::find_probe(probe);
  return entry != nullptr && entry->pooled != nullptr;
}

Report pooled_report(const std::vector<ResultsFile>& files) {
  if (files.empty()) throw usage_error("--pool: no " + probe_list(true) + " results files");
  const cli::ProbeEntry* entry = cli::find_probe(files.front().probe());
  if (entry == nullptr || entry->pooled == nullptr)
    throw usage_error("--pool: " + files.front().path.string() + " holds " + files.front().probe() +
                      " results, which are not pooled (" + probe_list(true) + " are)");
  return entry->pooled(files);
}

std::vector<Json> pooled_records(const std::vector<ResultsFile>& files) {
  const cli::ProbeEntry* entry = files.empty() ? nullptr : cli::find_probe(files.front().probe());
  return entry != nullptr && entry->pooled_records != nullptr ? entry->pooled_records(files) : std::vector<Json>{};
}

Report results_report(const ResultsFile& file) {
  const std::string name = file.path.string();
  if (file.records.empty())
    throw usage_error(name + " holds no results" + (file.truncated_tail ? " (only an incomplete line)" : ""));
  const std::string probe = file.probe();
  if (probe.empty())
    throw usage_error(file.place(0) +
                      ": not a hetprobe results header (a results file starts with a record "
                      "whose \"record\" is \"header\" and whose \"probe\" names the probe)");
  // A record of another probe means two runs appended to one file: its tables would mix them.
  for (std::size_t i = 1; i < file.records.size(); ++i)
    if (const std::string other = field_or<std::string>({file.records[i], file.place(i)}, "probe", probe);
        other != probe)
      throw usage_error(file.place(i) + ": a " + other + " record in a file of " + probe +
                        " results (another run appended to it)");
  const cli::ProbeEntry* entry = cli::find_probe(probe);
  if (entry == nullptr) throw usage_error(name + " holds " + probe + " results; show knows " + probe_list());
  return entry->report(file);
}

void check_results(const ResultsFile& file) {
  if (file.records.empty()) (void)results_report(file);  // says the file holds no results
  ResultsFile run;
  run.path = file.path;
  const auto check = [&] {
    if (!run.records.empty()) (void)results_report(run);
    run.records.clear();
    run.lines.clear();
  };
  for (std::size_t i = 0; i < file.records.size(); ++i) {
    if (i > 0 && record_kind({file.records[i], file.place(i)}) == "header") check();
    run.records.push_back(file.records[i]);
    if (i < file.lines.size()) run.lines.push_back(file.lines[i]);
  }
  check();
}

std::string record_label(const Json& record) {
  const RecordRef r{record, "record"};
  const cli::ProbeEntry* entry = cli::find_probe(field_or<std::string>(r, "probe", ""));
  return entry ? entry->record_label(record) : record_kind(r);
}

}  // namespace hetprobe
