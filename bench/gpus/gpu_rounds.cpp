#include "bench/gpus/gpu_rounds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/effect.hpp"
#include "base/number_text.hpp"
#include "bench/core/record_field.hpp"
#include "bench/core/results_report.hpp"
#include "bench/gpus/node_verdict.hpp"

namespace hetprobe {

std::size_t RunRounds::launches_of(GpusPhase phase) const {
  std::set<std::size_t> seen;
  for (const GpuVisit& v : visits)
    if (v.phase == phase) seen.insert(v.launch);
  return seen.size();
}

std::string device_key(const std::string& host, const std::string& pci_bus_id, int ordinal) {
  return host + " " + (pci_bus_id.empty() ? "device " + std::to_string(ordinal) : pci_bus_id);
}

std::optional<std::pair<int, int>> ranks_sharing_a_device(const std::map<int, std::string>& device_of) {
  std::map<std::string, int> first_of;
  for (const auto& [rank, device] : device_of)
    if (const auto [it, fresh] = first_of.emplace(device, rank); !fresh) return std::pair(it->second, rank);
  return std::nullopt;
}

std::string shared_device(const std::map<int, GpuIdentity>& gpus) {
  std::map<int, std::string> device_of;
  for (const auto& [rank, id] : gpus)
    if (!id.pci_bus_id.empty() || id.ordinal >= 0)  // else nothing says which device it was
      device_of[rank] = device_key(id.host, id.pci_bus_id, id.ordinal);
  const auto shared = ranks_sharing_a_device(device_of);
  return shared ? "ranks " + std::to_string(shared->first) + " and " + std::to_string(shared->second) +
                      " measured one device (" + device_of.at(shared->first) + ")"
                : "";
}

namespace {

void read_gpus_header(const RecordRef& h, RunRounds& run) {
  run.hosts.insert(field<std::string>(h, "host"));
  run.backends.insert(field<std::string>(h, "backend"));
  const Json& ranks = field_json(h, "ranks");
  if (!ranks.is_array()) bad_field(h, "ranks", "a list of the ranks");
  for (const Json& entry : ranks) {
    const RecordRef e{entry, h.place + " (ranks)"};
    const int rank = field<int>(e, "rank");
    run.hosts.insert(field<std::string>(e, "host"));
    run.gpus[rank] = {field_or<std::string>(e, "device.pci_bus_id", ""),
                      device_model(field<std::string>(e, "device.name")), field<std::string>(e, "host"),
                      field_or<int>(e, "device.ordinal", -1)};
  }
}

GpuVisit read_visit(const RecordRef& r, std::size_t launch) {
  GpuVisit v;
  v.launch = launch;
  v.phase = kGpusPhaseNames.parse(field<std::string>(r, "phase"));
  v.round = field<int>(r, "round");
  v.gpu = field<int>(r, "gpu");
  if (!field_json(r, "metrics").is_object()) bad_field(r, "metrics", "an object of numbers");
  for (std::size_t m = 0; m < kGpuMetrics.size(); ++m) {
    const Json value = number_or_null(r, std::string("metrics.") + kGpuMetrics[m].key);
    if (value.is_number() && value.get<double>() > 0 && std::isfinite(value.get<double>()))
      v.values[m] = value.get<double>();
  }
  return v;
}

LinkReading read_link(const RecordRef& r) {
  LinkReading l;
  l.read = field_or<std::string>(r, "status", "") == "ok";
  l.below_max = field_or<bool>(r, "below_max", false);
  const auto number = [&](const char* key) {
    const Json v = number_or_null(r, key);
    return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
  };
  l.speed_gts = number("current_speed_gts");
  l.max_speed_gts = number("max_speed_gts");
  if (const auto w = number("current_width")) l.width = static_cast<int>(*w);
  if (const auto w = number("max_width")) l.max_width = static_cast<int>(*w);
  l.read_while = field_or<std::string>(r, "read_while", "");
  return l;
}

}  // namespace

RunRounds read_run_rounds(const std::vector<ResultsFile>& files) {
  RunRounds run;
  if (!files.empty()) run.where = files.front().path.parent_path().string();
  std::size_t launch = 0;
  bool in_gpus = false;
  for (const ResultsFile& file : files) {
    std::string probe;
    for (std::size_t i = 0; i < file.records.size(); ++i) {
      const RecordRef r{file.records[i], file.place(i)};
      const std::string kind = record_kind(r);
      if (kind == "header") {
        probe = field_or<std::string>(r, "probe", "");
        in_gpus = probe == "gpus";
        if (in_gpus) {
          ++launch;
          read_gpus_header(r, run);
        }
      } else if (in_gpus && kind == "gpu_round") {
        run.visits.push_back(read_visit(r, launch - 1));
        GpuIdentity& id = run.gpus[run.visits.back().gpu];
        if (id.pci_bus_id.empty()) id.pci_bus_id = field_or<std::string>(r, "pci_bus_id", "");
      } else if (probe == "bandwidth" && kind == "link") {
        run.links[field_or<int>(r, "rank", 0)] = read_link(r);
      }
    }
  }
  return run;
}

Estimate estimate(const std::map<std::size_t, std::vector<double>>& by_launch) {
  Estimate e;
  std::vector<double> all;
  for (const auto& [launch, values] : by_launch) {
    if (values.empty()) continue;
    all.insert(all.end(), values.begin(), values.end());
    e.launch_medians.push_back(summarize(values).median);
  }
  e.n = all.size();
  if (all.empty()) return e;
  e.median = summarize(all).median;
  std::optional<Interval> ci = median_ci95(all);
  if (e.launch_medians.size() >= 3) {
    const std::optional<Interval> launches = pool_launch_ratios(e.launch_medians).ci95;
    if (launches && ci) ci = Interval{std::min(ci->low, launches->low), std::max(ci->high, launches->high)};
    else if (launches) ci = launches;
  }
  e.ci95 = ci;
  return e;
}

Json Estimate::to_json() const {
  return Json{{"n", n},
              {"median", n ? Json(median) : Json(nullptr)},
              {"ci95", ci95 ? Json::array({ci95->low, ci95->high}) : Json(nullptr)},
              {"launch_medians", launch_medians}};
}

std::string Estimate::text(const std::string& unit) const {
  const std::string u = unit.empty() ? "" : " " + unit;
  std::string s = number_text(median) + u + " (";
  s += ci95 ? "95% CI " + range_text(ci95->low, ci95->high) + ", " : "no interval, ";
  s += std::to_string(n) + " round" + (n == 1 ? "" : "s") + " in " + std::to_string(launch_medians.size()) + " launch" +
       (launch_medians.size() == 1 ? "" : "es") + ")";
  return s;
}

std::string gpu_name(int gpu, const RunRounds& run) {
  const auto it = run.gpus.find(gpu);
  const std::string pci = it != run.gpus.end() ? it->second.pci_bus_id : "";
  return "GPU " + std::to_string(gpu) + (pci.empty() ? "" : " (" + pci + ")");
}

Json flag_record(const RunRounds& run, const Flag& f) {
  const auto it = run.gpus.find(f.gpu);
  const bool value = std::isfinite(f.value), reference = std::isfinite(f.reference);
  return Json{{"gpu", f.gpu},
              {"pci_bus_id",
               it != run.gpus.end() && !it->second.pci_bus_id.empty() ? Json(it->second.pci_bus_id) : Json(nullptr)},
              {"metric", f.metric},
              {"unit", f.unit},
              {"value", value ? Json(f.value) : Json(nullptr)},
              {"reference", reference ? Json(f.reference) : Json(nullptr)},
              {"reference_kind", f.reference_kind},
              {"deviation", value && reference && f.reference > 0 ? Json(f.value / f.reference - 1) : Json(nullptr)},
              {"tolerance", f.tolerance},
              {"status", f.status},
              {"why", f.why},
              {"line", gpu_name(f.gpu, run) + ": " + f.why}};
}

std::string deviation_text(double deviation) {
  return number_text(std::fabs(deviation) * 100) + "% " + (deviation > 0 ? "above" : "below");
}

}  // namespace hetprobe
