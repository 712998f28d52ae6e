// The tables of notify results, from their records (so `hetprobe show`
// prints the same tables from a file as the probe prints at its end).
#include "bench/notify/notify_table.hpp"

#include <cstdio>

#include "bench/core/results_report.hpp"

namespace hetprobe {

namespace {

using Align = Column::Align;
using Shown = Column::Shown;

// The flag setup's four columns, as every notify table starts (after rank).
std::vector<Column> setup_columns() {
  return {{"rank", 4, Align::left},
          {"cpu", 8, Align::left},
          {"gpu", 8, Align::left},
          {"flags", 7, Align::left},
          {"spacing", 9, Align::left}};
}

std::vector<Json> setup_cells(const RecordRef& r) {
  return {field_or<int>(r, "rank", 0), field<std::string>(r, "setup.cpu_order"),
          field<std::string>(r, "setup.gpu_order"), field<std::string>(r, "setup.placement"),
          field<std::string>(r, "setup.spacing")};
}

// median, p10, p90 of a summary in ns (null where unresolved or absent).
void add_spread(std::vector<Column>& columns) {
  for (const char* name : {"median_ns", "p10_ns", "p90_ns"}) columns.push_back({name, 10, Align::right, 1});
}

void add_spread(const RecordRef& r, const std::string& summary, std::vector<Json>& row) {
  for (const char* k : {".median", ".p10", ".p90"}) row.push_back(number_or_null(r, summary + k));
}

Json sample_count(const RecordRef& r, const std::string& summary) {
  return field_or<std::int64_t>(r, summary + ".n", 0);
}

Table handover_table(const ResultsFile& file) {
  Table t{"handover",
          {"One flag read + one flag write of a flag the other side wrote last (Elis et al. 2024, Table 1), each pair",
           "timed alone: CPU side on the host clock, GPU side on the device timer; beyond_timer = pair median less",
           "the median of the timer's own cost (an empty timed region)"},
          setup_columns()};
  t.columns.push_back({"side", 4, Align::left});
  t.columns.push_back({"timer", 12, Align::left});
  add_spread(t.columns);
  t.columns.push_back({"timer_cost_ns", 13, Align::right, 1});
  t.columns.push_back({"beyond_timer_ns", 15, Align::right, 1});
  t.columns.push_back({"n", 7});
  t.columns.push_back({"note", 0, Align::left, -1, Shown::text});
  t.columns.push_back({"below_timer_tick", 0, Align::left, -1, Shown::data});
  t.columns.push_back({"missed_writes", 0, Align::right, -1, Shown::data});
  add_rows_of_kind(t, file, "handover", notify_record_label, [](const RecordRef& r) {
    std::vector<Json> row = setup_cells(r);
    row.push_back(field<std::string>(r, "side"));
    row.push_back(field<std::string>(r, "timer"));
    add_spread(r, "pair_ns", row);
    row.push_back(number_or_null(r, "timer_cost_ns.median"));
    row.push_back(number_or_null(r, "pair_beyond_timer_ns"));
    row.push_back(sample_count(r, "pair_ns"));
    const bool below = field<bool>(r, "below_timer_tick");
    row.push_back(below ? "(below timer tick)" : "");
    row.push_back(below);
    row.push_back(field<std::int64_t>(r, "missed_writes"));
    return row;
  });
  return t;
}

Table overhead_table(const ResultsFile& file) {
  Table t{"overhead",
          {"Loop on an owned line: one flag read + one flag write, ops_per_sample times in a row on a flag the timing",
           "side wrote last, per pair (store forwarding: a loop time, not Table 1's); CPU side on the host clock, GPU",
           "side on the device timer; contended: the other side polls the flag"},
          setup_columns()};
  t.columns.push_back({"side", 4, Align::left});
  t.columns.push_back({"contention", 10, Align::left});
  add_spread(t.columns);
  t.columns.push_back({"n", 7});
  t.columns.push_back({"ops_per_sample", 14});
  t.columns.push_back({"note", 0, Align::left, -1, Shown::text});
  t.columns.push_back({"below_timer_tick", 0, Align::left, -1, Shown::data});
  add_rows_of_kind(t, file, "overhead", notify_record_label, [](const RecordRef& r) {
    std::vector<Json> row = setup_cells(r);
    row.push_back(field<std::string>(r, "side"));
    row.push_back(field<bool>(r, "contended") ? "polled" : "none");
    add_spread(r, "ns_per_op", row);
    row.push_back(sample_count(r, "ns_per_op"));
    row.push_back(field<int>(r, "ops_per_sample"));
    const bool unresolved = field_or<bool>(r, "ns_per_op.unresolved", false);
    row.push_back(unresolved ? "(below timer tick)" : "");
    row.push_back(unresolved);
    return row;
  });
  return t;
}

Table roundtrip_table(const ResultsFile& file) {
  Table t{"roundtrip",
          {"Round trip through two flags (a persistent device thread; half = one notification)"},
          setup_columns()};
  t.columns.push_back({"direction", 12, Align::left});
  t.columns.push_back({"timer", 6, Align::left});
  add_spread(t.columns);
  t.columns.push_back({"half_median_ns", 10, Align::right, 1});
  t.columns.push_back({"n", 7});
  add_rows_of_kind(t, file, "roundtrip", notify_record_label, [](const RecordRef& r) {
    std::vector<Json> row = setup_cells(r);
    row.push_back(field<std::string>(r, "direction"));
    row.push_back(field<std::string>(r, "timed_by"));
    add_spread(r, "roundtrip_ns", row);
    row.push_back(number_or_null(r, "half_roundtrip_ns.median"));
    row.push_back(sample_count(r, "roundtrip_ns"));
    return row;
  });
  return t;
}

Table mechanism_table(const ResultsFile& file) {
  Table t{"mechanisms",
          {"Mechanisms, side by side: host-timed round trip = CPU says go + GPU says done"},
          {{"rank", 4, Align::left}, {"mechanism", 26, Align::left}}};
  add_spread(t.columns);
  t.columns.push_back({"go_call_ns", 10, Align::right, 1});
  t.columns.push_back({"n", 7});
  t.columns.push_back({"go / done", 0, Align::left, -1, Shown::text, 2});
  for (const char* name : {"status", "go", "done", "skipped_reason"})
    t.columns.push_back({name, 0, Align::left, -1, Shown::data});
  add_rows_of_kind(t, file, "mechanism", notify_record_label, [](const RecordRef& r) {
    const std::string status = field<std::string>(r, "status");
    const bool ok = status == "ok";
    const Json go = field_or<std::string>(r, "go", ""), done = field_or<std::string>(r, "done", "");
    const Json reason = ok ? Json() : Json(field_or<std::string>(r, "skipped_reason", status));
    std::vector<Json> row{field_or<int>(r, "rank", 0), field<std::string>(r, "mechanism")};
    if (ok) add_spread(r, "roundtrip_ns", row);
    else row.insert(row.end(), 3, nullptr);
    row.push_back(ok ? number_or_null(r, "go_call_ns.median") : Json());
    row.push_back(ok ? sample_count(r, "roundtrip_ns") : Json(0));
    row.push_back(ok ? go.get<std::string>() + " / " + done.get<std::string>()
                     : "skipped: " + reason.get<std::string>());
    for (const Json& cell : {Json(status), go, done, reason}) row.push_back(cell);
    return row;
  });
  return t;
}

}  // namespace

Report notify_report(const ResultsFile& file) {
  Report report{device_timer_about(file, "notify")};
  report.about.insert(report.about.begin() + 1,
                      "all times in ns: median (p10, p90) over n samples; rank shown where more than one ran");
  add_if_nonempty(report, handover_table(file));
  add_if_nonempty(report, overhead_table(file));
  add_if_nonempty(report, roundtrip_table(file));
  add_if_nonempty(report, mechanism_table(file));
  return report;
}

std::string notify_record_label(const Json& record) {
  const RecordRef r{record, "record"};
  const std::string kind = record_kind(r);
  const auto orders = [&] {
    std::string s = "(";  // appended, not "(" + string: GCC 12 warns falsely (-Wrestrict) on that
    s += field_or<std::string>(r, "setup.cpu_order", "?");
    s += "/";
    s += field_or<std::string>(r, "setup.gpu_order", "?");
    return s + ")";
  };
  const auto median = [&] {
    return cell_text({"", 0, Column::Align::right, 1}, number_or_null(r, "roundtrip_ns.median"));
  };
  if (kind == "handover")
    return "handover " + field_or<std::string>(r, "side", "?") + " " + orders() + ": " +
           cell_text({"", 0, Column::Align::right, 1}, number_or_null(r, "pair_beyond_timer_ns")) +
           " ns beyond the timer";
  if (kind == "overhead")
    return "overhead " + field_or<std::string>(r, "side", "?") +
           (field_or<bool>(r, "contended", false) ? " contended " : " uncontended ") + orders();
  if (kind == "roundtrip")
    return "roundtrip " + field_or<std::string>(r, "direction", "?") + " " + orders() + ": median " + median() + " ns";
  if (kind == "mechanism")
    return "mechanism " + field_or<std::string>(r, "mechanism", "?") + ": " +
           (field_or<std::string>(r, "status", "") == "ok" ? "median " + median() + " ns" : "skipped");
  return kind;
}

}  // namespace hetprobe
