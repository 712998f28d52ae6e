// The bandwidth probe's table from its records: each traffic's GB/s (median,
// min, max of its samples) and how close it comes to its plain pass; under
// it, the PCIe link each rank read during a write load.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "bench/bandwidth/bandwidth_table.hpp"
#include "bench/core/results_report.hpp"
#include "bench/core/sizes.hpp"
#include "topology/pci_link.hpp"

namespace hetprobe {

namespace {

using Align = Column::Align;
using Shown = Column::Shown;

// Percent of the plain pass's median; null for the plain passes themselves
// and for traffic with no plain counterpart (poll). Files from before
// "reference" give every non-plain row its ratio.
Json vs_plain_pct(const RecordRef& r) {
  const Json* reference = find_field(r, "reference");
  const bool compared = reference != nullptr ? !reference->is_null() : field<std::string>(r, "pass") != "plain";
  const Json ratio = number_or_null(r, "ratio_to_plain_median");
  return compared && ratio.is_number() ? Json(100 * ratio.get<double>()) : Json();
}

template <class T>
std::optional<T> optional_field(const RecordRef& r, std::string_view path) {
  const Json* v = find_field(r, path);
  return v == nullptr || v->is_null() ? std::nullopt : std::optional<T>(field<T>(r, path));
}

// "PCIe link 0000:06:00.0: 16.0 GT/s (gen 4) x16 of max 16.0 GT/s x16, read
// during a write load at full rate", BELOW MAX where it is; "(rank N)" where
// several ranks read one.
std::string link_note(const RecordRef& r, bool name_rank) {
  std::string s = "PCIe link";
  if (const auto bus = optional_field<std::string>(r, "pci_bus_id")) s += " " + *bus;
  if (name_rank) s += " (rank " + std::to_string(field_or<int>(r, "rank", 0)) + ")";
  if (field<std::string>(r, "status") != "ok")
    return s + ": not read: " + field_or<std::string>(r, "skipped_reason", "no reason recorded");
  PciLink link;
  link.current_speed_gts = optional_field<double>(r, "current_speed_gts");
  link.max_speed_gts = optional_field<double>(r, "max_speed_gts");
  link.current_generation = optional_field<int>(r, "current_generation");
  link.current_width = optional_field<int>(r, "current_width");
  link.max_width = optional_field<int>(r, "max_width");
  s += ": " + link.text();
  if (optional_field<bool>(r, "below_max").value_or(false)) s += ", BELOW MAX";
  const auto during = optional_field<std::string>(r, "read_while");
  return s + (during ? ", read during a " + *during : "");
}

}  // namespace

Report bandwidth_report(const ResultsFile& file) {
  const RecordRef h{file.records.front(), file.place(0)};
  Report report;
  report.about.push_back(device_line(h, "bandwidth") + ", " + format_size(field<std::uint64_t>(h, "config.bytes")) +
                         " pinned host buffer, " + std::to_string(field<int>(h, "config.reps")) +
                         " samples each; GB/s = 10^9 B/s; poll: 8 B per thread-poll; vs_plain_pct = median / the "
                         "plain pass's median, %");
  for (const std::string& w : header_warnings(file)) report.about.push_back(w);
  Table t{"bandwidth", {}, {}};
  t.columns = {{"traffic", 24, Align::left},
               {"pass", 0, Align::left, -1, Shown::data},
               {"kind", 0, Align::left, -1, Shown::data},
               {"access", 0, Align::left, -1, Shown::data},
               {"bytes", 0, Align::right, -1, Shown::data},
               {"median_gbs", 10, Align::right, 2},
               {"min_gbs", 10, Align::right, 2},
               {"max_gbs", 10, Align::right, 2},
               {"vs_plain_pct", 12, Align::right, 1},
               {"n", 0, Align::right, -1, Shown::data}};
  for (std::size_t i = 1; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    if (field_or<std::string>(r, "record", "") != "point") continue;
    const std::string writer = field<std::string>(r, "writer");
    const std::vector<double> gbs = number_list(r, "gbs", "a list of numbers (GB/s)");
    const auto [min, max] = std::minmax_element(gbs.begin(), gbs.end());
    const auto access = optional_field<std::string>(r, "access");
    t.rows.push_back({writer, field<std::string>(r, "pass"), field<std::string>(r, "kind"),
                      access ? Json(*access) : Json(), field<std::uint64_t>(r, "bytes"),
                      number_or_null(r, "median_gbs"), gbs.empty() ? Json() : Json(*min),
                      gbs.empty() ? Json() : Json(*max), vs_plain_pct(r), gbs.size()});
    add_record_warnings(r, writer, t.notes);
  }
  std::vector<RecordRef> links;
  for (std::size_t i = 1; i < file.records.size(); ++i)
    if (field_or<std::string>({file.records[i], file.place(i)}, "record", "") == "link")
      links.push_back({file.records[i], file.place(i)});
  for (const RecordRef& r : links) t.notes.push_back(link_note(r, links.size() > 1));
  report.tables.push_back(std::move(t));
  return report;
}

std::string bandwidth_record_label(const Json& record) {
  const RecordRef r{record, "record"};
  if (record_kind(r) == "point") {
    char median[64];
    std::snprintf(median, sizeof median, ": median %.2f GB/s", field_or<double>(r, "median_gbs", 0.0));
    return "bandwidth " + field_or<std::string>(r, "writer", "?") + median;
  }
  if (record_kind(r) == "link") return link_note(r, false);
  return record_kind(r);
}

}  // namespace hetprobe
