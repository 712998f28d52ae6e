#include "bench/core/record_label.hpp"

#include <cstdio>

#include "bench/core/results_report.hpp"

namespace hetprobe {

using Align = Column::Align;

std::string record_label(const Json& record) {
  const RecordRef r{record, "record"};
  const std::string kind = record_kind(r);
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
    return "clock batch " + std::to_string(field_or<int>(r, "batch", 0)) + " (" +
           field_or<std::string>(r, "role", "?") + ") at " + at + " s";
  }
  if (kind == "clock_fit") return "clock fit";
  if (kind == "halo")
    return "halo " + field_or<std::string>(r, "layout", "?") + " " + field_or<std::string>(r, "variant", "?") +
           ": median " + median("iteration_ns") + " ns per iteration, " + field_or<std::string>(r, "status", "?");
  if (kind == "point" && field_or<std::string>(r, "probe", "") == "bandwidth") {
    char median[64];
    std::snprintf(median, sizeof median, ": median %.2f GB/s", field_or<double>(r, "median_gbs", 0.0));
    return "bandwidth " + field_or<std::string>(r, "writer", "?") + median;
  }
  if (kind == "link") {
    std::string s = "PCIe link";
    if (const std::string bus = field_or<std::string>(r, "pci_bus_id", ""); !bus.empty()) s += " " + bus;
    return s + ": " + field_or<std::string>(r, "status", "?");
  }
  return kind;
}

}  // namespace hetprobe
