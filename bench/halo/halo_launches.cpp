#include "bench/halo/halo_launches.hpp"

#include <map>
#include <string>
#include <utility>

#include "base/effect.hpp"
#include "base/errors.hpp"
#include "base/stats.hpp"
#include "bench/core/launches.hpp"
#include "bench/core/record_field.hpp"
#include "bench/core/results_report.hpp"
#include "bench/halo/halo_record.hpp"

namespace hetprobe {

namespace {

using Align = Column::Align;
using SetupKey = std::pair<std::string, std::string>;  // layout, setup

struct Launches {
  std::vector<double> speedups, medians_ns;  // per launch: the paired speed-up, the slowest rank's median
  std::vector<std::string> against;          // per launch: its strongest baseline
};

Table launches_table() {
  Table t{"halo_launches", {}, halo_layout_columns()};
  t.columns.push_back({"setup", 44, Align::left});
  for (Column& c : pooled_columns("speedup", "launch_speedups", 8)) t.columns.push_back(std::move(c));
  t.columns.push_back({"median_us", 10, Align::right, 1});
  t.columns.push_back({"against", 0, Align::left});
  return t;
}

// "baseline isend waitall pinned 128t", or each launch's where they differ.
std::string against_text(const std::vector<std::string>& against) {
  std::string text;
  for (const std::string& a : against)
    if (text.find(a) == std::string::npos) text += (text.empty() ? "" : " / ") + a;
  return text;
}

}  // namespace

Report halo_launches_report(const std::vector<ResultsFile>& files) {
  if (files.empty()) throw usage_error("--pool: no halo results files");
  const Json* first = nullptr;
  const std::string first_name = files.front().path.string();
  std::vector<SetupKey> order;  // the first file's
  std::map<SetupKey, int> cube;
  std::map<SetupKey, std::string> shown;  // "cube 400"
  std::map<SetupKey, Launches> launches;
  for (std::size_t f = 0; f < files.size(); ++f) {
    const Json& h = launch_header(files[f], "halo", first, first_name);
    if (first == nullptr) first = &h;
    for (std::size_t i = 1; i < files[f].records.size(); ++i) {
      const RecordRef r{files[f].records[i], files[f].place(i)};
      if (record_kind(r) != "halo" || field_or<int>(r, "rank", 0) != 0) continue;
      const Json speedup = number_or_null(r, "speedup.median");
      if (!speedup.is_number() || !(speedup.get<double>() > 0)) continue;  // files from before rounds: none
      const SetupKey k{field<std::string>(r, "layout"), field<std::string>(r, "setup")};
      Launches& l = launches[k];
      if (f == 0) order.push_back(k), cube[k] = field_or<int>(r, "cube", 0), shown[k] = halo_short_layout(r);
      if (l.speedups.size() != f) continue;  // a setup twice in one launch counts once
      l.speedups.push_back(speedup.get<double>());
      l.medians_ns.push_back(field<double>(r, "slowest_rank_iteration_ns.median"));
      l.against.push_back(field<std::string>(r, "speedup.against"));
    }
  }
  if (order.empty())
    throw usage_error("--pool: " + first_name + " has no paired speed-ups (a halo run of version 1.x, before rounds)");
  // The setups of one layout pooled together.
  const std::map<SetupKey, PooledRatio> pooled = pool_by_group(
      order, files.size(), [&](const SetupKey& k) { return launches[k].speedups; },
      [](const SetupKey& k) { return k.first; }, [](const SetupKey& k) { return k.first + " " + k.second; });
  Report report;
  add_launches_about(report, files, *first, "halo");
  report.about.push_back(
      "speedup = the median of the launches' paired speed-ups over the layout's strongest baseline (> 1: faster); "
      "ci95 = exp(mean +- t * s / sqrt(k)) of their logs (3 launches or more), s and t's degrees of freedom pooled "
      "over the setups of the layout; effect = speedup or slowdown where that interval lies wholly beyond 5%; "
      "median_us: the median over launches of the slowest rank's median iteration");
  Table t = launches_table();
  for (const SetupKey& k : order) {
    const Launches& l = launches[k];
    std::vector<Json> row = halo_layout_cells(shown[k], k.first, cube[k]);
    row.push_back(k.second);
    for (Json& cell : pooled_cells(l.speedups, pooled.at(k), classify_speedup)) row.push_back(std::move(cell));
    row.push_back(summarize(l.medians_ns).median / 1e3);
    row.push_back(against_text(l.against));
    t.rows.push_back(std::move(row));
  }
  note_few_launches(t, files.size());
  report.tables.push_back(std::move(t));
  return report;
}

}  // namespace hetprobe
