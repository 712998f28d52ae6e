#include "bench/toy/toy_table.hpp"

#include "bench/core/results_report.hpp"

namespace hetprobe {

std::string toy_record_label(const Json& record) {
  const RecordRef r{record, "toy record"};
  return "toy " + field<std::string>(r, "record") + " of rank " + std::to_string(field_or<int>(r, "rank", 0));
}

Report toy_report(const ResultsFile& file) {
  using Align = Column::Align;
  Table t{"toy",
          {"What one read of the host clock costs, in ns: each sample times reads_per_sample reads back to back"},
          {{"rank", 4, Align::left},
           {"clock", 12, Align::left},
           {"reads_per_sample", 16},
           {"samples", 7},
           {"median_ns", 9, Align::right, 2},
           {"p10_ns", 9, Align::right, 2},
           {"p90_ns", 9, Align::right, 2}}};
  add_rows_of_kind(t, file, "timer_read", toy_record_label, [](const RecordRef& r) {
    return std::vector<Json>{field_or<int>(r, "rank", 0),
                             field<std::string>(r, "clock"),
                             field<int>(r, "reads_per_sample"),
                             field<int>(r, "ns_per_read.n"),
                             field<double>(r, "ns_per_read.median"),
                             field<double>(r, "ns_per_read.p10"),
                             field<double>(r, "ns_per_read.p90")};
  });
  Report report;
  report.tables.push_back(std::move(t));
  return report;
}

}  // namespace hetprobe
