#include "bench/interference/interference_launches.hpp"

#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "base/effect.hpp"
#include "base/errors.hpp"
#include "base/stats.hpp"
#include "bench/core/launches.hpp"
#include "bench/core/record_field.hpp"
#include "bench/core/results_report.hpp"
#include "bench/core/sizes.hpp"
#include "bench/interference/interference.hpp"
#include "bench/interference/interference_resume.hpp"
#include "bench/interference/interference_table.hpp"

namespace hetprobe {

namespace {

using Align = Column::Align;

}  // namespace

Report interference_launches_report(const std::vector<ResultsFile>& files) {
  if (files.empty()) throw usage_error("--pool: no interference results files");
  const Json* first = nullptr;
  const std::string first_name = files.front().path.string();
  // Per point (in the first file's order): each launch's paired ratio.
  std::vector<PointKey> order;
  std::map<PointKey, std::vector<double>> ratios;
  std::map<PointKey, std::vector<double>> ssb_medians;
  for (std::size_t f = 0; f < files.size(); ++f) {
    const Json& h = launch_header(files[f], "interference", first, first_name);
    if (first == nullptr) first = &h;
    for (std::size_t i = 1; i < files[f].records.size(); ++i) {
      const RecordRef r{files[f].records[i], files[f].place(i)};
      if (field_or<std::string>(r, "record", "") != "point") continue;
      const PointKey k = point_key(r);
      if (k.layout == Layout::SSB) continue;
      const Json ratio = number_or_null(r, "ratio_to_ssb_median");
      if (!ratio.is_number() || !(ratio.get<double>() > 0)) continue;
      if (f == 0) order.push_back(k);
      if (ratios[k].size() != f) continue;  // a point twice in one launch counts once
      ratios[k].push_back(ratio.get<double>());
      const Json ssb = number_or_null(r, "ssb_send_time_ns_median");
      if (ssb.is_number()) ssb_medians[k].push_back(ssb.get<double>());
    }
  }
  Report report;
  add_launches_about(report, files, *first, "interference");
  report.about.push_back(
      "ratio = the median of the launches' paired ratios to SSB; ci95 = exp(mean +- t * s / sqrt(k)) of their log "
      "ratios (3 launches or more), s and t's degrees of freedom pooled over the points of the size; effect = slowdown "
      "or speedup where that interval lies wholly beyond 5%");
  Table t{"interference_launches", {}, point_key_columns()};
  t.columns.push_back({"load", 18, Align::left});
  for (Column& c : pooled_columns("ratio", 9)) t.columns.push_back(std::move(c));
  t.columns.push_back({"ssb_median_us", 13, Align::right, 3});
  // The points of one size pooled together.
  const std::map<PointKey, PooledRatio> pooled = pool_by_group(
      order, files.size(), [&](const PointKey& k) { return ratios[k]; }, [](const PointKey& k) { return k.size; },
      [](const PointKey& k) { return describe(k); });
  for (const PointKey& k : order) {
    const std::string load = load_label(to_string(k.load), k.gpus, k.rate);
    const auto& ssb = ssb_medians[k];
    std::vector<Json> row = point_key_cells(k.size, to_string(k.access), to_string(k.layout));
    row.push_back(load);
    for (Json& cell : pooled_cells(ratios[k], pooled.at(k), classify_ratio)) row.push_back(std::move(cell));
    row.push_back(ssb.empty() ? Json(nullptr) : Json(summarize(ssb).median / 1e3));
    t.rows.push_back(std::move(row));
  }
  note_few_launches(t, files.size());
  report.tables.push_back(std::move(t));
  return report;
}

}  // namespace hetprobe
