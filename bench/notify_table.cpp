// The tables of notify and clock results, from their records (so `hetprobe
// show` prints the same tables from a file as the probe prints at its end).
#include "hetprobe/notify_table.hpp"

#include <cstdio>

#include "hetprobe/results_report.hpp"

namespace hetprobe {

namespace {

using Align = Column::Align;
using Shown = Column::Shown;

// The flag setup's four columns, as every notify table starts (after rank).
std::vector<Column> setup_columns() {
  return {{"rank", 4, Align::left}, {"cpu", 8, Align::left}, {"gpu", 8, Align::left}, {"flags", 7, Align::left},
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

std::string kind_of(const RecordRef& r) { return field_or<std::string>(r, "record", ""); }

Table overhead_table(const ResultsFile& file) {
  Table t{"overhead",
          {"Notification overhead (paper 002 Table 1): one flag read + one flag write, per pair;",
           "CPU side on the host clock, GPU side on the device timer; contended: the other side polls the flag"},
          setup_columns()};
  t.columns.push_back({"side", 4, Align::left});
  t.columns.push_back({"contention", 10, Align::left});
  add_spread(t.columns);
  t.columns.push_back({"n", 7});
  t.columns.push_back({"ops_per_sample", 14});
  t.columns.push_back({"note", 0, Align::left, -1, Shown::text});
  t.columns.push_back({"below_timer_tick", 0, Align::left, -1, Shown::data});
  for (std::size_t i = 1; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    if (kind_of(r) != "overhead") continue;
    std::vector<Json> row = setup_cells(r);
    row.push_back(field<std::string>(r, "side"));
    row.push_back(field<bool>(r, "contended") ? "polled" : "none");
    add_spread(r, "ns_per_op", row);
    row.push_back(sample_count(r, "ns_per_op"));
    row.push_back(field<int>(r, "ops_per_sample"));
    const bool unresolved = field_or<bool>(r, "ns_per_op.unresolved", false);
    row.push_back(unresolved ? "(below timer tick)" : "");
    row.push_back(unresolved);
    t.rows.push_back(std::move(row));
    add_record_warnings(r, record_label(r.json), t.notes);
  }
  return t;
}

Table roundtrip_table(const ResultsFile& file) {
  Table t{"roundtrip", {"Round trip through two flags (a persistent device thread; half = one notification)"},
          setup_columns()};
  t.columns.push_back({"direction", 12, Align::left});
  t.columns.push_back({"timer", 6, Align::left});
  add_spread(t.columns);
  t.columns.push_back({"half_median_ns", 10, Align::right, 1});
  t.columns.push_back({"n", 7});
  for (std::size_t i = 1; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    if (kind_of(r) != "roundtrip") continue;
    std::vector<Json> row = setup_cells(r);
    row.push_back(field<std::string>(r, "direction"));
    row.push_back(field<std::string>(r, "timed_by"));
    add_spread(r, "roundtrip_ns", row);
    row.push_back(number_or_null(r, "half_roundtrip_ns.median"));
    row.push_back(sample_count(r, "roundtrip_ns"));
    t.rows.push_back(std::move(row));
    add_record_warnings(r, record_label(r.json), t.notes);
  }
  return t;
}

Table mechanism_table(const ResultsFile& file) {
  Table t{"mechanisms", {"Mechanisms, side by side: host-timed round trip = CPU says go + GPU says done"},
          {{"rank", 4, Align::left}, {"mechanism", 26, Align::left}}};
  add_spread(t.columns);
  t.columns.push_back({"go_call_ns", 10, Align::right, 1});
  t.columns.push_back({"n", 7});
  t.columns.push_back({"go / done", 0, Align::left, -1, Shown::text, 2});
  for (const char* name : {"status", "go", "done", "skipped_reason"})
    t.columns.push_back({name, 0, Align::left, -1, Shown::data});
  for (std::size_t i = 1; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    if (kind_of(r) != "mechanism") continue;
    const std::string status = field<std::string>(r, "status");
    const bool ok = status == "ok";
    const Json go = field_or<std::string>(r, "go", ""), done = field_or<std::string>(r, "done", "");
    const Json reason = ok ? Json() : Json(field_or<std::string>(r, "skipped_reason", status));
    std::vector<Json> row{field_or<int>(r, "rank", 0), field<std::string>(r, "mechanism")};
    if (ok) add_spread(r, "roundtrip_ns", row);
    else row.insert(row.end(), 3, nullptr);
    row.push_back(ok ? number_or_null(r, "go_call_ns.median") : Json());
    row.push_back(ok ? sample_count(r, "roundtrip_ns") : Json(0));
    row.push_back(ok ? go.get<std::string>() + " / " + done.get<std::string>() : "skipped: " + reason.get<std::string>());
    for (const Json& cell : {Json(status), go, done, reason}) row.push_back(cell);
    t.rows.push_back(std::move(row));
    add_record_warnings(r, record_label(r.json), t.notes);
  }
  return t;
}

Table clock_batch_table(const ResultsFile& file) {
  Table t{"clock_batches", {"Ping-pong batches: half the round trip bounds where the device timer read lies on the host clock"},
          {{"rank", 4, Align::left},
           {"batch", 5},
           {"role", 6, Align::left},
           {"at_s", 7, Align::right, 2},
           {"samples", 7},
           {"half_interval_median_ns", 10, Align::right, 1},
           {"half_interval_best_ns", 10, Align::right, 1}}};
  for (std::size_t i = 1; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    if (kind_of(r) != "clock_batch") continue;
    const Json& values = field_json(r, "device_start.values");
    if (!values.is_array()) bad_field(r, "device_start.values", "a list of timer readings");
    t.rows.push_back({field_or<int>(r, "rank", 0), field<int>(r, "batch"), field<std::string>(r, "role"),
                      field<double>(r, "at_s"), values.size(), number_or_null(r, "half_interval_ns.median"),
                      number_or_null(r, "half_interval_ns.min")});
    add_record_warnings(r, record_label(r.json), t.notes);
  }
  return t;
}

Table clock_fit_table(const ResultsFile& file) {
  Table t{"clock_fit",
          {"Clock fit over the samples with the shortest round trips: host_ns = host_ref_ns + ns_per_tick * "
           "(ticks - device_ref_ticks); check: a batch after the fit, check_error_ns = measured - predicted host time"},
          {}, {}, {}, true};
  const std::pair<const char*, int> fields[] = {
      {"rank", -1}, {"span_s", 2}, {"samples_used", -1}, {"samples_total", -1}, {"mapping.host_ref_ns", 3},
      {"mapping.ns_per_tick", 9}, {"mapping.device_ref_ticks", -1}, {"drift_ppm", 3}, {"drift_reference", -1},
      {"reference_ns_per_tick", 6}, {"offset_ns", 1}, {"precision_ns", 1}, {"best_precision_ns", 1},
      {"residual_rms_ns", 1}, {"residual_max_abs_ns", 1}, {"check.after_last_fit_batch_s", 1},
      {"check.error_ns", 1}, {"check.precision_ns", 1}, {"check.within_precision", -1}};
  for (const auto& [name, decimals] : fields) {
    std::string column = name;
    for (char& ch : column) ch = ch == '.' ? '_' : ch;
    t.columns.push_back({column, 0, Align::right, decimals});
  }
  for (std::size_t i = 1; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    if (kind_of(r) != "clock_fit") continue;
    std::vector<Json> row;
    for (const auto& [name, decimals] : fields) {
      const std::string path = name;
      if (path == "rank") row.push_back(field_or<int>(r, path, 0));
      else if (path == "drift_reference") row.push_back(field<std::string>(r, path));
      else if (path == "check.within_precision") row.push_back(field<bool>(r, path));
      else if (path == "samples_used" || path == "samples_total" || path == "mapping.device_ref_ticks")
        row.push_back(field<std::uint64_t>(r, path));
      else row.push_back(number_or_null(r, path));  // null where a quantity could not be formed
    }
    t.rows.push_back(std::move(row));
    add_record_warnings(r, record_label(r.json), t.notes);
  }
  return t;
}

// The run line every notify and clock report starts with.
std::vector<std::string> about(const ResultsFile& file, const char* probe) {
  const RecordRef h{file.records.front(), file.place(0)};
  char line[128];
  std::snprintf(line, sizeof line, "; device timer tick %.3g ns, host clock ",
                field_or<double>(h, "device.timer_tick_ns", 0.0));
  std::vector<std::string> out{device_line(h, probe) + line + field<std::string>(h, "host_clock.source")};
  for (const std::string& w : header_warnings(file)) out.push_back(w);
  return out;
}

void keep_nonempty(Report& report, Table table) {
  if (!table.rows.empty()) report.tables.push_back(std::move(table));
}

}  // namespace

std::string record_label(const Json& record) {
  const RecordRef r{record, "record"};
  const std::string kind = kind_of(r);
  auto orders = [&] {
    std::string s = "(";  // appended, not "(" + string: GCC 12 warns falsely (-Wrestrict) on that
    s += field_or<std::string>(r, "setup.cpu_order", "?");
    s += "/";
    s += field_or<std::string>(r, "setup.gpu_order", "?");
    return s + ")";
  };
  auto median = [&](const char* summary) {
    return cell_text({"", 0, Align::right, 1}, number_or_null(r, std::string(summary) + ".median"));
  };
  if (kind == "overhead")
    return "overhead " + field_or<std::string>(r, "side", "?") +
           (field_or<bool>(r, "contended", false) ? " contended " : " uncontended ") + orders();
  if (kind == "roundtrip")
    return "roundtrip " + field_or<std::string>(r, "direction", "?") + " " + orders() + ": median " +
           median("roundtrip_ns") + " ns";
  if (kind == "mechanism")
    return "mechanism " + field_or<std::string>(r, "mechanism", "?") + ": " +
           (field_or<std::string>(r, "status", "") == "ok" ? "median " + median("roundtrip_ns") + " ns" : "skipped");
  if (kind == "clock_batch") {
    char at[32];
    std::snprintf(at, sizeof at, "%.2f", field_or<double>(r, "at_s", 0.0));
    return "clock batch " + std::to_string(field_or<int>(r, "batch", 0)) + " (" + field_or<std::string>(r, "role", "?") +
           ") at " + at + " s";
  }
  if (kind == "clock_fit") return "clock fit";
  if (kind == "halo")
    return "halo " + field_or<std::string>(r, "layout", "?") + " " + field_or<std::string>(r, "variant", "?") +
           ": median " + median("iteration_ns") + " ns per iteration, " + field_or<std::string>(r, "status", "?");
  return kind;
}

Report notify_report(const ResultsFile& file) {
  Report report{about(file, "notify")};
  report.about.insert(report.about.begin() + 1,
                      "all times in ns: median (p10, p90) over n samples; rank shown where more than one ran");
  keep_nonempty(report, overhead_table(file));
  keep_nonempty(report, roundtrip_table(file));
  keep_nonempty(report, mechanism_table(file));
  return report;
}

Report clock_report(const ResultsFile& file) {
  Report report{about(file, "clock")};
  keep_nonempty(report, clock_batch_table(file));
  keep_nonempty(report, clock_fit_table(file));
  return report;
}

void print_notify_tables(std::FILE* out, const Json& header, const std::vector<Json>& records) {
  print_report(out, TableFormat::table, notify_report(records_of_this_run(header, records)));
}

void print_clock_table(std::FILE* out, const Json& header, const std::vector<Json>& records) {
  print_report(out, TableFormat::table, clock_report(records_of_this_run(header, records)));
}

}  // namespace hetprobe
