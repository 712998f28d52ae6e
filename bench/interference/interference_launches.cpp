#include "bench/interference/interference_launches.hpp"

#include <algorithm>
#include <string>

#include "base/effect.hpp"
#include "base/errors.hpp"
#include "base/stats.hpp"
#include "base/text_list.hpp"
#include "bench/aggregate/run_launches.hpp"
#include "bench/core/launches.hpp"
#include "bench/core/record_field.hpp"
#include "bench/core/results_report.hpp"
#include "bench/core/sizes.hpp"
#include "bench/interference/interference.hpp"
#include "bench/interference/interference_aggregate.hpp"
#include "bench/interference/interference_resume.hpp"
#include "bench/interference/interference_table.hpp"

namespace hetprobe {

namespace {

using Align = Column::Align;

const char* kPoolingAbout =
    "ratio_to_ssb = the median of the launches' paired ratios to SSB; ci95 = exp(mean +- t * s / sqrt(k)) of "
    "their log ratios (3 launches or more), s and t's degrees of freedom pooled over the points of the size (one "
    "launch: its own interval over its rounds); effect = slowdown or speedup where that interval lies wholly beyond "
    "5%";

Table pooled_table() {
  Table t{"interference_launches", {}, point_key_columns()};
  t.columns.push_back({"load", 18, Align::left});
  for (Column& c : pooled_columns("ratio_to_ssb", "launch_ratios", 9)) t.columns.push_back(std::move(c));
  t.columns.push_back({"ssb_median_us", 13, Align::right, 3});
  return t;
}

std::vector<Json> pooled_row(const InterferenceAggregate& a) {
  std::vector<Json> row = point_key_cells(a.key.size, to_string(a.key.access), to_string(a.key.layout));
  row.push_back(load_label(to_string(a.key.load), a.key.gpus, a.key.rate));
  for (Json& cell : pooled_cells(a.ratio_to_ssb)) row.push_back(std::move(cell));
  const auto& ssb = a.ssb_send_time_ns.median;
  row.push_back(ssb ? Json(*ssb / 1e3) : Json(nullptr));
  return row;
}

// A pooled file (show --pool --records): its aggregates as written, one
// segment per command; with several, a step column names each row's.
Report pooled_file_report(const ResultsFile& file) {
  Report report;
  const RecordRef first{file.records.front(), file.place(0)};
  Table t = pooled_table();
  std::vector<std::string> steps, few;
  std::size_t launches = 0;
  for (std::size_t i = 0; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    const std::string kind = field_or<std::string>(r, "record", "");
    if (kind == "header") {
      const std::vector<std::string> names = pooled_launch_names(file.records[i]);
      launches = names.size();
      steps.push_back(split_launch(names.empty() ? file.path : std::filesystem::path(names.front())).step);
      report.about.push_back(steps.back() + ": " + std::to_string(launches) +
                             (launches == 1 ? " launch: " : " launches: ") + comma_list(names));
      if (launches < 3) few.push_back(steps.back());
      continue;
    }
    if (kind != "aggregate") continue;
    const InterferenceAggregate a = aggregate_of_record(r);
    if (a.key.layout == Layout::SSB || !a.ratio_to_ssb.median) continue;
    t.rows.push_back(pooled_row(a));
    t.rows.back().push_back(steps.empty() ? Json() : Json(steps.back()));
  }
  report.about.insert(report.about.begin(), device_line(first, "interference") + ": pooled points read from " +
                                                file.path.string() + " (a launch is the unit of replication)");
  report.about.push_back(kPoolingAbout);
  if (steps.size() > 1) {
    t.columns.push_back({"step", 18, Align::left});
  } else {
    for (auto& row : t.rows) row.pop_back();
  }
  if (!few.empty())
    t.notes.push_back(comma_list(few) + ": fewer than 3 launches: no interval from the spread between launches");
  report.tables.push_back(std::move(t));
  return report;
}

}  // namespace

Report interference_launches_report(const std::vector<ResultsFile>& files) {
  if (files.empty()) throw usage_error("--pool: no interference results files");
  if (files.size() == 1 && holds_aggregates(files.front())) return pooled_file_report(files.front());
  const Json* first = nullptr;
  const std::string first_name = files.front().path.string();
  for (const ResultsFile& f : files)
    if (const Json& h = launch_header(f, "interference", first, first_name); first == nullptr) first = &h;
  const std::size_t launches = run_launches(files, "interference").size();
  Report report;
  add_launches_about(report, files, *first, "interference");
  report.about.push_back(kPoolingAbout);
  Table t = pooled_table();
  for (const InterferenceAggregate& a : aggregate_interference(files)) {
    if (a.key.layout == Layout::SSB || !a.ratio_to_ssb.median) continue;
    if (a.series != 0)  // a merged file's segment of another command
      throw usage_error("--pool: " + describe(a.key) + " of " + files[a.records.front().file].path.string() +
                        " is of another command than " + first_name + ": pool launches of one command");
    const std::size_t have = std::count_if(a.ratio_to_ssb.per_launch.begin(), a.ratio_to_ssb.per_launch.end(),
                                           [](const std::optional<double>& r) { return r && *r > 0; });
    if (have != launches)
      throw usage_error("--pool: " + describe(a.key) + " is in " + std::to_string(have) + " of the " +
                        std::to_string(launches) + " launches: pool launches of one command");
    t.rows.push_back(pooled_row(a));
  }
  note_few_launches(t, launches);
  report.tables.push_back(std::move(t));
  return report;
}

std::vector<Json> interference_pooled_records(const std::vector<ResultsFile>& files) {
  std::vector<Json> out{pooled_header(files)};
  for (const InterferenceAggregate& a : aggregate_interference(files)) out.push_back(aggregate_record(a, files));
  return out;
}

}  // namespace hetprobe
