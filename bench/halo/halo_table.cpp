// The halo probe's table: the thesis's comparison, each setup against the
// fastest baseline with the same send mode and block size on the same layout,
// and against the fastest baseline of the layout over all its setups, with
// the paper's Eq. 1 lower bound beside it.
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "bench/core/results_report.hpp"
#include "bench/halo/halo_parts.hpp"
#include "bench/halo/halo_record.hpp"

namespace hetprobe {

namespace {

using Align = Column::Align;
using Shown = Column::Shown;

bool is(const RecordRef& r, const char* kind) { return field_or<std::string>(r, "record", "") == kind; }

// Rank 0's measured runs: the table's rows. A run that measured nothing has
// iteration_ns null; a record without the field is malformed (field_json
// says so), never a row quietly left out.
bool rank0_halo(const RecordRef& r) {
  return is(r, "halo") && field_or<int>(r, "rank", 0) == 0 && !field_json(r, "iteration_ns").is_null();
}

// The setups a baseline is the thesis's comparison for: layout, send mode,
// threads per block, and the single-copy mechanism (runs merged from several,
// each header's mpi.transport, are each compared with their own baseline).
using PeerKey = std::tuple<std::string, std::string, int, std::string>;
PeerKey peer_key(const RecordRef& r, const std::string& single_copy) {
  return {halo_short_layout(r), field<std::string>(r, "send_mode"), field_or<int>(r, "threads_per_block", 0),
          single_copy};
}
// A halo_model record's lower bound: its layout and setup.
using SetupKey = std::pair<std::string, std::string>;

// The single-copy mechanism of the run a header starts; "" in files from before it.
std::string single_copy_of(const RecordRef& header) {
  return field_or<std::string>(header, "mpi.transport.single_copy", "");
}

template <class Key>
void keep_lowest(std::map<Key, double>& lowest, const Key& key, double value) {
  auto [it, fresh] = lowest.emplace(key, value);
  if (!fresh) it->second = std::min(it->second, value);
}

Table halo_table() {
  Table t{"halo", {}, halo_layout_columns()};
  t.columns.insert(t.columns.end(), {{"variant", 14, Align::left},
                                     {"setup", 0, Align::left, -1, Shown::data},
                                     {"send", 5, Align::left},
                                     {"wait/sig", 8, Align::left, -1, Shown::text},
                                     {"receive_wait", 0, Align::left, -1, Shown::data},
                                     {"signal", 0, Align::left, -1, Shown::data},
                                     {"staging", 7, Align::left},
                                     {"single_copy", 0, Align::left, -1, Shown::data},
                                     {"threads", 7},
                                     {"pause_ns", 8},
                                     {"parts", 6, Align::left, -1, Shown::text},
                                     {"parts", 0, Align::left, -1, Shown::data},
                                     {"median_us", 10, Align::right, 1},
                                     {"p10_us", 10, Align::right, 1},
                                     {"p90_us", 10, Align::right, 1},
                                     {"slowest_us", 10, Align::right, 1},
                                     {"vs_base", 8, Align::right, 3},
                                     {"vs_best", 8, Align::right, 3},
                                     {"vs_best_ci95", 11, Align::right, -1, Shown::text},
                                     {"vs_best_ci95_low", 0, Align::right, -1, Shown::data},
                                     {"vs_best_ci95_high", 0, Align::right, -1, Shown::data},
                                     {"effect", 8, Align::left},
                                     {"strongest_baseline", 0, Align::left, -1, Shown::data},
                                     {"model_lb_us", 11, Align::right, 3},
                                     {"payload", 0, Align::left, -1, Shown::everywhere, 2},
                                     {"n", 0, Align::right, -1, Shown::data},
                                     {"status", 0, Align::left, -1, Shown::data}});
  t.notes.push_back(
      "vs_base: the fastest baseline's median (same layout, send mode and threads) / this median (> 1: "
      "faster); vs_best: the strongest baseline of the layout (the fastest, any setup) over this setup, paired round "
      "by round (the median of the rounds' ratios of the slowest rank's medians; in files from before rounds, of "
      "the two medians), vs_best_ci95 its 95% interval (6 rounds or more), effect = speedup or slowdown where the "
      "interval lies wholly beyond 5%; pause_ns: ns between "
      "a GPU unpack's flag reads; parts: bytes a block packs or unpacks (auto: the engine's choice, whole: one "
      "block per message); model_lb_us: the lower bound of Elis et al. 2024, Eq. 1");
  return t;
}

}  // namespace

Report halo_report(const ResultsFile& file) {
  // best_baseline: per layout, send mode and threads; best_of_layout: per layout, any setup.
  std::map<PeerKey, double> best_baseline;
  std::map<std::string, double> best_of_layout;
  std::map<SetupKey, double> bound;
  std::string single_copy;
  for (std::size_t i = 0; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    if (is(r, "header")) single_copy = single_copy_of(r);
    if (is(r, "halo_model") && field_or<int>(r, "rank", 0) == 0) {
      const Json& bounds = field_json(r, "lower_bound_ns");
      if (!bounds.is_object()) bad_field(r, "lower_bound_ns", "an object of setup: ns");
      for (const auto& [setup, b] : bounds.items()) {
        if (!b.is_number()) bad_field(r, "lower_bound_ns." + setup, "a number");
        bound[{halo_short_layout(r), setup}] = b.get<double>();
      }
    }
    if (rank0_halo(r) && field<std::string>(r, "variant") == "baseline") {
      const double median = field<double>(r, "iteration_ns.median");
      keep_lowest(best_baseline, peer_key(r, single_copy), median);
      keep_lowest(best_of_layout, field<std::string>(r, "layout"), median);
    }
  }
  Report report;
  const bool device = file.records.front().contains("device");  // not in a run's own stand-in header
  const std::string what = "per-iteration time of rank 0 (and of the slowest rank), us: median (p10, p90)";
  if (device) report.about.push_back(device_line({file.records.front(), file.place(0)}, "halo"));
  for (const std::string& line : mpi_transport_about({file.records.front(), file.place(0)}))
    report.about.push_back(line);
  report.about.push_back(device ? what : std::string("hetprobe halo: ") + what);
  for (const std::string& w : header_warnings(file)) report.about.push_back(w);
  Table t = halo_table();
  for (std::size_t i = 0; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    if (is(r, "header")) single_copy = single_copy_of(r);
    if (!rank0_halo(r)) continue;
    const std::string layout = halo_short_layout(r), variant = field<std::string>(r, "variant");
    const double median = field<double>(r, "iteration_ns.median");
    const auto b = best_baseline.find(peer_key(r, single_copy));
    const auto best = best_of_layout.find(field<std::string>(r, "layout"));
    // Absent in files from before parts: "-".
    const std::optional<PartSize> parts = find_field(r, "parts") ? std::optional(part_size_at(r, "parts"))
                                                                 : std::nullopt;
    const auto lb = bound.find({layout, field_or<std::string>(r, "setup", variant)});
    const std::string wait = field_or<std::string>(r, "receive_wait", ""),
                      signal = field_or<std::string>(r, "signal", "");
    const Json slowest = number_or_null(r, "slowest_rank_iteration_ns.median");
    // The record's paired speed-up (absent in files from before rounds: the ratio of the medians).
    const Json speedup = find_field(r, "speedup") ? field_json(r, "speedup") : Json();
    const Json paired = speedup.is_object() ? number_or_null(r, "speedup.median") : Json();
    const Json ci = speedup.is_object() ? field_json(r, "speedup.ci95") : Json();
    const Json effect = speedup.is_object() ? field_json(r, "speedup.effect") : Json();
    if (!ci.is_null() && !interval_of(ci)) bad_field(r, "speedup.ci95", "[low, high] or null");
    std::vector<Json> row = halo_layout_cells(layout, field<std::string>(r, "layout"), field_or<int>(r, "cube", 0));
    row.insert(row.end(), {variant,
                           field_or<std::string>(r, "setup", variant),
                           field<std::string>(r, "send_mode"),
                           variant == "baseline" ? wait : signal,
                           wait,
                           signal.empty() ? Json() : Json(signal),
                           field_or<std::string>(r, "staging", ""),
                           single_copy.empty() ? Json() : Json(single_copy),
                           number_or_null(r, "threads_per_block"),  // null in files from before it
                           number_or_null(r, "poll_pause_ns"),
                           parts ? Json(to_string(*parts)) : Json(),
                           parts ? to_json(*parts) : Json(),
                           median / 1e3,
                           field<double>(r, "iteration_ns.p10") / 1e3,
                           field<double>(r, "iteration_ns.p90") / 1e3,
                           slowest.is_number() ? Json(slowest.get<double>() / 1e3) : Json(),
                           b == best_baseline.end() ? Json() : Json(b->second / median),
                           paired.is_number()             ? paired
                           : speedup.is_object()          ? Json()
                           : best == best_of_layout.end() ? Json()
                                                          : Json(best->second / median),
                           interval_text(ci),
                           ci.is_array() ? ci[0] : Json(),
                           ci.is_array() ? ci[1] : Json(),
                           effect.is_string() ? effect : Json(),
                           speedup.is_object() ? field_json(r, "speedup.against") : Json(),
                           lb == bound.end() ? Json() : Json(lb->second / 1e3),
                           field<std::string>(r, "payload.check"),
                           field_or<std::int64_t>(r, "n", 0),
                           field_or<std::string>(r, "status", "ok")});
    t.rows.push_back(std::move(row));
    add_record_warnings(r, layout + " " + field_or<std::string>(r, "setup", variant), t.notes);
  }
  report.tables.push_back(std::move(t));
  return report;
}

std::string halo_short_layout(const RecordRef& r) {
  const int cube = field_or<int>(r, "cube", 0);
  return cube > 0 ? "cube " + std::to_string(cube) : field<std::string>(r, "layout");
}

std::vector<Column> halo_layout_columns() {
  return {{"layout", 12, Align::left, -1, Shown::text},
          {"layout", 0, Align::left, -1, Shown::data},
          {"cube", 0, Align::right, -1, Shown::data}};
}

std::vector<Json> halo_layout_cells(const std::string& shown, const std::string& layout, int cube) {
  return {shown.substr(0, 12), layout, cube};
}

std::string halo_record_label(const Json& record) {
  const RecordRef r{record, "record"};
  if (record_kind(r) != "halo") return record_kind(r);
  return "halo " + field_or<std::string>(r, "layout", "?") + " " + field_or<std::string>(r, "variant", "?") +
         ": median " + cell_text({"", 0, Column::Align::right, 1}, number_or_null(r, "iteration_ns.median")) +
         " ns per iteration, " + field_or<std::string>(r, "status", "?");
}

}  // namespace hetprobe
