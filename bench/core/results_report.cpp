// What every probe's report shares.
#include "bench/core/results_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "base/errors.hpp"
#include "bench/core/sizes.hpp"

namespace hetprobe {

ResultsFile records_of_this_run(const Json& header, const std::vector<Json>& records) {
  ResultsFile file;
  file.path = "this run's records";
  file.records.reserve(records.size() + 1);
  file.records.push_back(header);
  file.records.insert(file.records.end(), records.begin(), records.end());
  return file;
}

std::string device_line(const RecordRef& h, const std::string& probe) {
  const std::string backend = field_or<std::string>(h, "device.backend", field_or<std::string>(h, "backend", "?"));
  return "hetprobe " + probe + ": " + field<std::string>(h, "device.name") + " (" + backend + ") on " +
         field<std::string>(h, "host");
}

std::vector<std::string> header_warnings(const ResultsFile& file) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < file.records.size(); ++i) {
    const RecordRef r{file.records[i], file.place(i)};
    if (field_or<std::string>(r, "record", "") != "header") continue;
    for (const std::string& w : record_warnings(r))
      if (std::find(out.begin(), out.end(), "warning: " + w) == out.end()) out.push_back("warning: " + w);
  }
  return out;
}

void add_record_warnings(const RecordRef& record, const std::string& label, std::vector<std::string>& notes) {
  for (const std::string& w : record_warnings(record)) notes.push_back("warning (" + label + "): " + w);
}

std::vector<std::string> mpi_transport_about(const RecordRef& h) {
  if (find_field(h, "mpi.transport") == nullptr) return {};
  static const std::map<std::string, std::string> kNames{{"open-mpi", "Open MPI"},
                                                         {"mpich", "MPICH"},
                                                         {"intel-mpi", "Intel MPI"}};
  const std::string library = field<std::string>(h, "mpi.transport.library");
  const auto known = kNames.find(library);
  std::string line = "MPI: " + (known != kNames.end() ? known->second : library);
  if (const std::string version = field_or<std::string>(h, "mpi.transport.version", ""); !version.empty())
    line += " " + version;
  if (const std::string pml = field_or<std::string>(h, "mpi.transport.pml", ""); !pml.empty()) line += ", pml " + pml;
  if (const Json* btls = find_field(h, "mpi.transport.btl_components"); btls != nullptr && !btls->is_null()) {
    std::string list;
    if (!btls->is_array()) bad_field(h, "mpi.transport.btl_components", "a list of names");
    for (const Json& b : *btls) {
      if (!b.is_string()) bad_field(h, "mpi.transport.btl_components", "a list of names");
      if (!list.empty()) list += ',';
      list += b.get<std::string>();
    }
    line += ", btl " + list;
  }
  if (library != "open-mpi") return {line};
  const std::string single_copy = field_or<std::string>(h, "mpi.transport.single_copy", "");
  const std::string source = field_or<std::string>(h, "mpi.transport.single_copy_source", "");
  line += single_copy.empty() ? ", no shared-memory BTL (single copy does not apply)"
                              : ", single copy " + single_copy + (source.empty() ? "" : " (" + source + ")");
  // Between hosts (files from before it: absent).
  const std::string network = field_or<std::string>(h, "mpi.transport.network_btl", "");
  if (network.empty()) return {line};
  line += "; between hosts the " + network + " BTL" + (network == "tcp" ? " (TCP)" : "");
  if (const Json* limit = find_field(h, "mpi.transport.network_eager_limit_bytes"); limit && !limit->is_null())
    line += ", eager limit " + format_size(field<std::uint64_t>(h, "mpi.transport.network_eager_limit_bytes"));
  return {line};
}

std::vector<std::string> device_timer_about(const ResultsFile& file, const char* probe) {
  const RecordRef h{file.records.front(), file.place(0)};
  char line[128];
  std::snprintf(line, sizeof line, "; device timer tick %.3g ns, host clock ",
                field_or<double>(h, "device.timer_tick_ns", 0.0));
  std::vector<std::string> out{device_line(h, probe) + line + field<std::string>(h, "host_clock.source")};
  for (const std::string& w : header_warnings(file)) out.push_back(w);
  return out;
}

void add_if_nonempty(Report& report, Table table) {
  if (!table.rows.empty()) report.tables.push_back(std::move(table));
}

std::optional<Interval> interval_of(const Json& ci) {
  if (!ci.is_array() || ci.size() != 2 || !ci[0].is_number() || !ci[1].is_number()) return std::nullopt;
  return Interval{ci[0].get<double>(), ci[1].get<double>()};
}

std::string interval_text(const Json& ci) { return interval_text(interval_of(ci)); }

std::string record_kind(const RecordRef& record) { return field_or<std::string>(record, "record", ""); }

}  // namespace hetprobe
