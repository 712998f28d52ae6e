// The tables of clock results, from their records (so `hetprobe show` prints
// the same tables from a file as the probe prints at its end).
#include "bench/clock/clock_table.hpp"

#include <algorithm>
#include <cstdio>

#include "bench/core/results_report.hpp"

namespace hetprobe {

namespace {

using Align = Column::Align;

Table clock_batch_table(const ResultsFile& file) {
  Table t{"clock_batches",
          {"Ping-pong batches: half the round trip bounds where the device timer read lies on the host clock"},
          {{"rank", 4, Align::left},
           {"batch", 5},
           {"role", 6, Align::left},
           {"at_s", 7, Align::right, 2},
           {"samples", 7},
           {"half_interval_median_ns", 10, Align::right, 1},
           {"half_interval_best_ns", 10, Align::right, 1}}};
  add_rows_of_kind(t, file, "clock_batch", clock_record_label, [](const RecordRef& r) {
    const Json& values = field_json(r, "device_start.values");
    if (!values.is_array()) bad_field(r, "device_start.values", "a list of timer readings");
    return std::vector<Json>{field_or<int>(r, "rank", 0),
                             field<int>(r, "batch"),
                             field<std::string>(r, "role"),
                             field<double>(r, "at_s"),
                             values.size(),
                             number_or_null(r, "half_interval_ns.median"),
                             number_or_null(r, "half_interval_ns.min")};
  });
  return t;
}

// Which of the pinned allocations tried holds the flags (files from before the choice have none).
void add_flag_page_note(const RecordRef& r, std::vector<std::string>& notes) {
  if (find_field(r, "flag_pages") == nullptr) return;
  const std::vector<double> p10 = number_list(r, "flag_pages.p10_half_interval_ns", "a list of numbers");
  const auto chosen = static_cast<std::size_t>(field<std::uint64_t>(r, "flag_pages.chosen"));
  if (chosen >= p10.size()) bad_field(r, "flag_pages.chosen", "an index into p10_half_interval_ns");
  const auto [lo, hi] = std::minmax_element(p10.begin(), p10.end());
  char line[200];
  std::snprintf(line, sizeof line,
                "rank %d: the flags lie in allocation %zu of the %zu tried, the one with the shortest round trips "
                "(10th-percentile half round trip %.0f ns; all tried: %.0f-%.0f ns)",
                field_or<int>(r, "rank", 0), chosen, p10.size(), p10[chosen], *lo, *hi);
  notes.emplace_back(line);
}

Table clock_fit_table(const ResultsFile& file) {
  Table t{"clock_fit",
          {"Clock fit over the samples with the shortest round trips: host_ns = host_ref_ns + ns_per_tick * "
           "(ticks - device_ref_ticks); check: a batch after the fit, check_error_ns = measured - predicted host time"},
          {},
          {},
          {},
          true};
  const std::pair<const char*, int> fields[] = {{"rank", -1},
                                                {"span_s", 2},
                                                {"samples_used", -1},
                                                {"samples_total", -1},
                                                {"mapping.host_ref_ns", 3},
                                                {"mapping.ns_per_tick", 9},
                                                {"mapping.device_ref_ticks", -1},
                                                {"drift_ppm", 3},
                                                {"drift_reference", -1},
                                                {"reference_ns_per_tick", 6},
                                                {"offset_ns", 1},
                                                {"precision_ns", 1},
                                                {"best_precision_ns", 1},
                                                {"residual_rms_ns", 1},
                                                {"residual_max_abs_ns", 1},
                                                {"check.after_last_fit_batch_s", 1},
                                                {"check.error_ns", 1},
                                                {"check.precision_ns", 1},
                                                {"check.within_precision", -1}};
  for (const auto& [name, decimals] : fields) {
    std::string column = name;
    for (char& ch : column) ch = ch == '.' ? '_' : ch;
    t.columns.push_back({column, 0, Align::right, decimals});
  }
  add_rows_of_kind(t, file, "clock_fit", clock_record_label, [&](const RecordRef& r) {
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
    add_flag_page_note(r, t.notes);
    return row;
  });
  return t;
}

}  // namespace

Report clock_report(const ResultsFile& file) {
  Report report{device_timer_about(file, "clock")};
  add_if_nonempty(report, clock_batch_table(file));
  add_if_nonempty(report, clock_fit_table(file));
  return report;
}

std::string clock_record_label(const Json& record) {
  const RecordRef r{record, "record"};
  if (record_kind(r) == "clock_fit") {
    char fit[96];
    std::snprintf(fit, sizeof fit, "clock fit: drift %.2f ppm, precision %.0f ns",
                  field_or<double>(r, "drift_ppm", 0.0), field_or<double>(r, "precision_ns", 0.0));
    return fit;
  }
  if (record_kind(r) != "clock_batch") return record_kind(r);
  char at[32];
  std::snprintf(at, sizeof at, "%.2f", field_or<double>(r, "at_s", 0.0));
  return "clock batch " + std::to_string(field_or<int>(r, "batch", 0)) + " (" + field_or<std::string>(r, "role", "?") +
         ") at " + at + " s";
}

}  // namespace hetprobe
