#include "bench/cli/probe.hpp"

#include <cstdio>

#include "bench/core/results_report.hpp"

namespace hetprobe::cli {

void Probe::print(const Json& header, const std::vector<Json>& records) {
  print_report(stdout, TableFormat::table, report(records_of_this_run(header, records)));
}

std::string Probe::record_label(const Json& record) const { return record_kind({record, "record"}); }

}  // namespace hetprobe::cli
