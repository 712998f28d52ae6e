#include "bench/gpus/gpus_table.hpp"

#include <cstdio>

#include "bench/core/record_field.hpp"
#include "bench/core/results_report.hpp"
#include "bench/gpus/gpu_metrics.hpp"
#include "bench/gpus/gpu_rounds.hpp"
#include "bench/gpus/node_verdict.hpp"

namespace hetprobe {

namespace {

using Align = Column::Align;
using Shown = Column::Shown;

// A metric's column: "write_gbs" as is, the unit in its name.
Table visits_table() {
  Table t{"visits", {"Every visit (round, its place in the round's order, the GPU's rank)"}, {}};
  t.columns = {{"phase", 9, Align::left}, {"round", 5}, {"position", 8}, {"gpu", 3}};
  for (const GpuMetric& m : kGpuMetrics) t.columns.push_back({m.key, 0, Align::right, 2});
  return t;
}

Json cell(const Json& j) { return j.is_number() ? j : Json(); }

// The verdict's rows: per GPU and metric, its median, the ratio to the node and its state.
Table verdict_table(const RecordRef& r) {
  Table t{"verdict", {"Each GPU against the node, this launch's rounds"}, {}};
  t.columns = {{"gpu", 3},
               {"metric", 14, Align::left},
               {"median", 10, Align::right, 2},
               {"ratio", 7, Align::right, 3},
               {"ratio_ci95_low", 0, Align::right, 3},
               {"ratio_ci95_high", 0, Align::right, 3},
               {"state", 11, Align::left}};
  const Json& verdict = field_json(r, "verdict");
  if (!verdict.is_object()) bad_field(r, "verdict", "an object");
  const RecordRef v{verdict, r.place + " (verdict)"};
  for (const Json& g : field_json(v, "per_gpu")) {
    const RecordRef gr{g, v.place};
    for (const auto& [key, m] : field_json(gr, "metrics").items()) {
      const RecordRef mr{m, gr.place};
      const Json* ci = find_field(mr, "ratio.ci95");
      const bool has_ci = ci != nullptr && ci->is_array() && ci->size() == 2;
      t.rows.push_back({field<int>(gr, "gpu"), key, cell(field_json(mr, "value.median")),
                        find_field(mr, "ratio.median") ? cell(*find_field(mr, "ratio.median")) : Json(),
                        has_ci ? cell((*ci)[0]) : Json(), has_ci ? cell((*ci)[1]) : Json(),
                        field<std::string>(mr, "state")});
    }
  }
  for (const Json& f : field_json(v, "flags")) t.notes.push_back(field<std::string>({f, v.place}, "line"));
  for (const Json& n : field_json(v, "notes")) t.notes.push_back(n.get<std::string>());
  if (field_json(v, "flags").empty())
    t.notes.push_back("no GPU beyond the tolerance of " + tolerance_text(field<double>(v, "tolerance")));
  return t;
}

}  // namespace

Report gpus_report(const ResultsFile& file) {
  const RecordRef h{file.records.front(), file.place(0)};
  Report report;
  report.about.push_back(device_line(h, "gpus") + "; " + std::to_string(field<int>(h, "config.rounds")) +
                         " rounds, phase " + field<std::string>(h, "config.phase") + ", seed " +
                         std::to_string(field<std::uint64_t>(h, "config.seed")) +
                         "; roundtrip_ns and launch_sync_ns: medians of a visit's samples; *_gbs: medians of its "
                         "plain passes (GB/s = 10^9 B/s)");
  for (const std::string& w : header_warnings(file)) report.about.push_back(w);
  Table visits = visits_table();
  std::optional<Table> verdict;
  for (std::size_t i = 1; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    const std::string kind = record_kind(r);
    if (kind == "gpu_round") {
      std::vector<Json> row{field<std::string>(r, "phase"), field<int>(r, "round"), field<int>(r, "position"),
                            field<int>(r, "gpu")};
      for (const GpuMetric& m : kGpuMetrics) row.push_back(number_or_null(r, std::string("metrics.") + m.key));
      visits.rows.push_back(std::move(row));
    } else if (kind == "gpus_verdict") {
      verdict = verdict_table(r);
    }
  }
  add_if_nonempty(report, std::move(visits));
  if (verdict) add_if_nonempty(report, std::move(*verdict));
  return report;
}

std::string gpus_record_label(const Json& record) {
  const RecordRef r{record, "record"};
  const std::string kind = record_kind(r);
  if (kind == "gpu_round")
    return "round " + std::to_string(field_or<int>(r, "round", 0) + 1) + ": GPU " +
           std::to_string(field_or<int>(r, "gpu", 0));
  if (kind == "gpus_verdict") return "the node verdict";
  return kind;
}

}  // namespace hetprobe
