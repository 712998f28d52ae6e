#include "bench/interference/interference_table.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "base/text_list.hpp"
#include "bench/core/message_path.hpp"
#include "bench/core/results_report.hpp"
#include "bench/core/sizes.hpp"
#include "bench/interference/interference_aggregate.hpp"
#include "bench/interference/interference_launches.hpp"
#include "bench/interference/link_check.hpp"
#include "bench/interference/send_gap.hpp"
#include "bench/load/load_options.hpp"

namespace hetprobe {

namespace {

using Align = Column::Align;
using Shown = Column::Shown;

// Column positions the footer reads back from a row.
constexpr std::size_t kSizeBytes = 1, kLayout = 3, kMedianUs = 8, kHarnessNs = 22, kEagerLimit = 23;

}  // namespace

Json traffic_gbs(const RecordRef& p) {
  if (const Json* load = find_field(p, "load"); load != nullptr && load->is_object())
    return number_or_null(p, "load.traffic_during_send_gbs");
  if (const Json* s = find_field(p, "writer.sender"); s != nullptr && s->is_object())
    return number_or_null(p, "writer.sender.bandwidth_during_send_gbs");
  return number_or_null(p, "writer.receiver.post_phase_gbs.median");
}

namespace {

// The load's kind, GPUs and rate (files from before the load kinds gain them
// on reading: bench/core/record_upgrade.cpp).
struct Load {
  std::string kind;
  int gpus;
  std::optional<LoadRate> rate;  // none for none
};

Load load_of(const RecordRef& p) {
  Load l{field<std::string>(p, "load_kind"), field<int>(p, "load_gpus"), std::nullopt};
  if (const Json* rate = find_field(p, "load_rate"); rate != nullptr) {
    if (!rate->is_string() && !rate->is_null()) bad_field(p, "load_rate", "a rate label (a string) or null");
    if (rate->is_string()) try {
        l.rate = parse_load_rate(rate->get<std::string>());
      } catch (const Error&) {
        bad_field(p, "load_rate", "a load rate such as 1, 0.5, 50% or 12GB/s");
      }
  }
  return l;
}

// "write x2 @0.5": kind, GPUs and rate (a full rate left out); "-" for none.
std::string load_text(const Load& l) { return l.kind == "none" ? "-" : load_label(l.kind, l.gpus, l.rate); }

// "warning (1 KiB stream P2AB write x1): ..." for a point's warnings.
std::string point_label(const std::vector<Json>& row) {
  std::string label = row[0].get<std::string>();
  for (std::size_t i : {2, 3, 4}) {
    label += ' ';
    label += row[i].get<std::string>();
  }
  return label;
}

// "10 rounds x 5 sends/point, 1 warm-up per visit" (files from before the
// rounds: "50 samples/point after 5 warm-up").
std::string sampling_text(const RecordRef& h) {
  const int reps = field<int>(h, "config.reps"), warmup = field<int>(h, "config.warmup");
  const Json* rounds = find_field(h, "config.rounds");
  if (rounds == nullptr || !rounds->is_number_integer())
    return std::to_string(reps) + " samples/point after " + std::to_string(warmup) + " warm-up";
  std::string text = std::to_string(rounds->get<int>()) + " rounds x " + std::to_string(reps) + " sends/point, " +
                     std::to_string(warmup) + " warm-up per visit, seed " + field_json(h, "config.seed").dump();
  // Files from before --gap have none; a gap of kind "none" is back to back.
  const Json* kind = find_field(h, "config.gap.kind");
  if (kind != nullptr && kind->is_string() && *kind != kGapKindNames.name(GapKind::none))
    text += ", gap " + field<std::string>(h, "config.gap.label") + " before each send";
  return text;
}

// The size against the path's eager limit: "reached" (ob1 sends it by
// rendezvous), "below", "-" where the record does not say (no limit known, or
// a file from before mpi_path).
std::string eager_limit_text(const RecordRef& p) {
  const Json* reached = find_field(p, "mpi_path.at_or_above_eager_limit");
  if (reached == nullptr || reached->is_null()) return "-";
  if (!reached->is_boolean()) bad_field(p, "mpi_path.at_or_above_eager_limit", "true, false or null");
  return reached->get<bool>() ? "reached" : "below";
}

Json bool_or_null(const RecordRef& p, std::string_view path) {
  const Json* b = find_field(p, path);
  if (b == nullptr || b->is_null()) return nullptr;
  if (!b->is_boolean()) bad_field(p, path, "true, false or null");
  return *b;
}

// The baseline rows of `rows` from `first` on, for the link check; each
// labelled as its warnings are, after `prefix` ("hpa>hpb " in a file of pairs).
std::vector<BaselinePoint> baseline_points(const std::vector<std::vector<Json>>& rows, std::size_t first,
                                           const std::string& prefix) {
  std::vector<BaselinePoint> out;
  for (std::size_t i = first; i < rows.size(); ++i) {
    const std::vector<Json>& row = rows[i];
    if (row[kLayout] != "SSB") continue;
    out.push_back({prefix + point_label(row), row[kSizeBytes].get<std::uint64_t>(), row[kMedianUs].get<double>() * 1e3,
                   row[kEagerLimit] == "reached"});
  }
  return out;
}

// "hpa>hpb": who sent to whom; "-" where the header names no pair.
std::string pair_text(const MessagePath& p) {
  return p.sender_host.empty() ? "-" : p.sender_host + ">" + p.receiver_host;
}

}  // namespace

std::vector<Column> point_key_columns() {
  return {{"size", 10, Align::right, -1, Shown::text},
          {"size_bytes", 0, Align::right, -1, Shown::data},  // kSizeBytes
          {"access", 8, Align::left},
          {"layout", 5, Align::left}};  // kLayout
}

std::vector<Json> point_key_cells(std::uint64_t size, const std::string& access, const std::string& layout) {
  return {format_size(size), size, access, layout};
}

Table interference_table(const RecordRef& h, std::vector<std::string>& about) {
  (void)field_json(h, "config");  // a header without it is named so, not by the first setting read
  const bool paper = field<bool>(h, "config.paper");
  const std::string into = field<bool>(h, "config.load_bytes_per_message")
                               ? "buffers of each message's size"
                               : std::to_string(field<std::uint64_t>(h, "config.load_bytes")) + " B";
  about.push_back(device_line(h, "interference") + ", MPI " + field<std::string>(h, "config.send_mode") +
                  ", GPU on the " + field<std::string>(h, "config.writer_side") + ", " + sampling_text(h) +
                  (paper ? "; the paper's writer" : ""));
  for (const std::string& line : mpi_transport_about(h)) about.push_back(line);
  about.push_back(
      "MPI_Send time in microseconds (median, p10, p90); ratio_to_ssb = the median over rounds of (the round's "
      "median / the same round's SSB median; docs/metrics.md), ci95 its 95% confidence interval, effect = slowdown or "
      "speedup where that interval lies wholly beyond 5%; load = kind x GPUs "
      "@ rate (of full, or GB/s per GPU) into " +
      into +
      "; traffic_gbs = GB/s the load moved during the send; eager_limit = the size against the MPI path's "
      "eager limit: reached (MPI sends it by rendezvous, the send waiting for the receiver) or below");
  Table t{"interference", {}, point_key_columns()};
  t.columns.insert(t.columns.end(), {{"load", 18, Align::left, -1, Shown::text},
                                     {"load_kind", 0, Align::left, -1, Shown::data},
                                     {"load_gpus", 0, Align::right, -1, Shown::data},
                                     {"load_rate", 0, Align::left, -1, Shown::data},
                                     {"median_us", 11, Align::right, 3},  // kMedianUs
                                     {"p10_us", 11, Align::right, 3},
                                     {"p90_us", 11, Align::right, 3},
                                     {"ratio_to_ssb", 12, Align::right, 2},
                                     {"ci95", 11, Align::right, -1, Shown::text},
                                     {"ratio_to_ssb_ci95_low", 0, Align::right, -1, Shown::data},
                                     {"ratio_to_ssb_ci95_high", 0, Align::right, -1, Shown::data},
                                     {"effect", 9, Align::left},
                                     {"traffic_gbs", 9, Align::right, 2},
                                     {"payload", 0, Align::left, -1, Shown::text, 2},
                                     {"payload_check", 0, Align::left, -1, Shown::data},
                                     {"torn_fraction", 0, Align::right, -1, Shown::data},
                                     {"n", 0, Align::right, -1, Shown::data},
                                     {"status", 0, Align::left, -1, Shown::data},
                                     {"harness_empty_region_ns", 0, Align::right, -1, Shown::data},  // kHarnessNs
                                     {"eager_limit", 11, Align::left, -1, Shown::everywhere, 2},     // kEagerLimit
                                     {"eager_limit_bytes", 0, Align::right, -1, Shown::data},
                                     {"across_hosts", 0, Align::left, -1, Shown::data}});
  return t;
}

std::vector<Json> interference_row(const RecordRef& p) {
  const std::uint64_t size = field<std::uint64_t>(p, "size_bytes");
  const Load load = load_of(p);
  const std::string check = field<std::string>(p, "payload.check");
  const Json torn = check == "torn" ? number_or_null(p, "payload.torn_fraction.median") : Json();
  char torn_text[32] = "-";
  if (torn.is_number()) std::snprintf(torn_text, sizeof torn_text, "%.3f", torn.get<double>());
  const std::string access = field<std::string>(p, "access");
  if (access != "stream" && access != "stacked") bad_field(p, "access", "stream or stacked");
  // Files from before the rounds have neither.
  const Json* found_ci = find_field(p, "ratio_to_ssb_ci95");
  const Json ci = found_ci != nullptr && found_ci->is_array() && found_ci->size() == 2 ? *found_ci : Json(nullptr);
  const Json* found_effect = find_field(p, "effect");
  const Json effect = found_effect != nullptr ? *found_effect : Json(nullptr);
  std::vector<Json> row = point_key_cells(size, access, field<std::string>(p, "layout"));
  row.insert(row.end(), {load_text(load),
                         load.kind,
                         load.gpus,
                         load.rate ? Json(load.rate->label) : Json(),
                         field<double>(p, "send_time_ns.median") / 1e3,
                         field<double>(p, "send_time_ns.p10") / 1e3,
                         field<double>(p, "send_time_ns.p90") / 1e3,
                         number_or_null(p, "ratio_to_ssb_median"),
                         interval_text(ci),
                         ci.is_array() ? ci[0] : Json(nullptr),
                         ci.is_array() ? ci[1] : Json(nullptr),
                         effect.is_string() ? effect : Json(),  // null (text: "-") where no interval judged it
                         traffic_gbs(p),
                         check == "torn" ? "torn " + std::string(torn_text) : check,
                         check,
                         torn,
                         field_or<std::int64_t>(p, "n", 0),
                         field_or<std::string>(p, "status", "ok"),
                         number_or_null(p, "harness_empty_region_ns.median"),
                         eager_limit_text(p),
                         number_or_null(p, "mpi_path.eager_limit_bytes"),
                         bool_or_null(p, "mpi_path.across_hosts")});
  return row;
}

std::string harness_note(const RecordRef& h, const Table& table) {
  if (table.rows.empty()) return "";
  const std::vector<Json>* smallest = &table.rows.front();
  for (const auto& row : table.rows)
    if (row[kMedianUs].get<double>() < (*smallest)[kMedianUs].get<double>()) smallest = &row;
  // Files from before the per-send harness measurement lack it (NaN: unknown).
  const Json& harness = (*smallest)[kHarnessNs];
  const double harness_ns = harness.is_number() ? harness.get<double>() : std::nan("");
  const double median_ns = (*smallest)[kMedianUs].get<double>() * 1e3;
  char line[512];
  std::snprintf(line, sizeof line,
                "harness (%s clock): an empty timed region before each send costs %.1f ns median "
                "at the point with the smallest median send time (%.1f ns): %.2f%% of it; %.1f ns at start-up",
                field<std::string>(h, "host_clock.source").c_str(), harness_ns, median_ns,
                100.0 * harness_ns / median_ns, field<double>(h, "host_clock.empty_region_median_ns"));
  return line;
}

void InterferenceTable::print_heading(const Json& header) {
  std::vector<std::string> about;
  table_ = interference_table({header, "interference header"}, about);
  path_ = message_path({header, "interference header"});
  if (!path_.sender_host.empty()) about.insert(about.end() - 1, describe(path_));
  for (const std::string& w : record_warnings({header, "interference header"})) about.push_back("warning: " + w);
  for (const std::string& line : about) std::fprintf(out_, "# %s\n", line.c_str());
  print_text_header(out_, table_);
  std::fflush(out_);
}

void InterferenceTable::print_row(const Json& point) {
  table_.rows.push_back(interference_row({point, "interference point"}));
  add_record_warnings({point, "interference point"}, point_label(table_.rows.back()), table_.notes);
  print_text_row(out_, table_, table_.rows.back());
  std::fflush(out_);
}

void InterferenceTable::print_footer(const Json& header) {
  const std::string note = harness_note({header, "interference header"}, table_);
  if (!note.empty()) std::fprintf(out_, "# %s\n", note.c_str());
  for (const std::string& line : link_warnings(path_, baseline_points(table_.rows, 0, "")))
    std::fprintf(out_, "# %s\n", line.c_str());
  for (const std::string& line : table_.notes) std::fprintf(out_, "# %s\n", line.c_str());
  std::fflush(out_);
}

Report interference_report(const ResultsFile& file) {
  if (holds_aggregates(file)) return interference_launches_report({file});  // a pooled file: its pooled table
  Report report;
  const RecordRef header{file.records.front(), file.place(0)};
  Table table = interference_table(header, report.about);
  // Each segment (a resumed run; a merged file, of several pairs) is read
  // with its own header's path: its pair, and its points against its link.
  std::vector<MessagePath> paths{message_path(header)};
  std::vector<std::size_t> starts{0}, row_segment;  // each segment's first row; each row's segment
  for (std::size_t i = 1; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    if (record_kind(r) == "header") {
      paths.push_back(message_path(r));
      starts.push_back(table.rows.size());
    }
    if (record_kind(r) != "point") continue;
    table.rows.push_back(interference_row(r));
    row_segment.push_back(paths.size() - 1);
    add_record_warnings(r, point_label(table.rows.back()), table.notes);
  }
  std::vector<std::string> pairs;
  for (const MessagePath& p : paths)
    if (std::find(pairs.begin(), pairs.end(), pair_text(p)) == pairs.end()) pairs.push_back(pair_text(p));
  const bool several = pairs.size() > 1;
  std::vector<std::string> link_notes;
  for (std::size_t s = 0; s < paths.size(); ++s) {
    const std::size_t end = s + 1 < starts.size() ? starts[s + 1] : table.rows.size();
    std::vector<std::vector<Json>> rows(table.rows.begin() + static_cast<std::ptrdiff_t>(starts[s]),
                                        table.rows.begin() + static_cast<std::ptrdiff_t>(end));
    for (std::string& line :
         link_warnings(paths[s], baseline_points(rows, 0, several ? pair_text(paths[s]) + " " : "")))
      link_notes.push_back(std::move(line));
  }
  if (several) {  // a merged file of pairs: each row names its pair
    report.about.insert(report.about.end() - 1, std::to_string(pairs.size()) +
                                                    " pairs of hosts, sender>receiver, by segment (the pair "
                                                    "column names each row's): " +
                                                    comma_list(pairs));
    table.columns.push_back({"pair", 12, Align::left, -1, Shown::everywhere, 2});
    for (std::size_t i = 0; i < table.rows.size(); ++i) table.rows[i].push_back(pair_text(paths[row_segment[i]]));
  } else if (!paths.front().sender_host.empty()) {
    report.about.insert(report.about.end() - 1, describe(paths.front()));
  }
  for (const std::string& w : header_warnings(file)) report.about.push_back(w);
  const std::string note = harness_note(header, table);
  for (std::string& line : link_notes) table.notes.push_back(std::move(line));
  if (!note.empty()) table.notes.insert(table.notes.begin(), note);
  report.tables.push_back(std::move(table));
  return report;
}

}  // namespace hetprobe
