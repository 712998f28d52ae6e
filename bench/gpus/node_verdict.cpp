// The node verdict (node_verdict.hpp says the rules; docs/metrics.md the formulas).
#include "bench/gpus/node_verdict.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <regex>
#include <tuple>

#include "base/errors.hpp"
#include "base/number_text.hpp"
#include "bench/gpus/gpu_rounds.hpp"

namespace hetprobe {

double parse_tolerance(const std::string& text, const std::string& option) {
  std::string raw = text;
  while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back()))) raw.pop_back();
  while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.front()))) raw.erase(raw.begin());
  const bool percent = !raw.empty() && raw.back() == '%';
  if (percent) raw.pop_back();
  double value = std::nan("");
  const auto [ptr, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), value);
  if (ec != std::errc() || ptr != raw.data() + raw.size() || raw.empty()) value = std::nan("");
  if (percent) value /= 100;
  if (!std::isfinite(value) || !(value > 0 && value < 1))
    throw usage_error(option + " '" + text +
                      "': expected a fraction above 0 and below 1 (0.1) or a percent above 0 and below 100 (10%)");
  return value;
}

std::string tolerance_text(double tolerance) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g%%", tolerance * 100);
  return text;
}

std::string device_model(const std::string& name) {
  static const std::regex slowed(R"( \(slowed x[^)]* by HETPROBE_HOST_SLOW\)$)");
  return std::regex_replace(name, slowed, "");
}

namespace {

using Values = std::map<std::size_t, std::vector<double>>;  // by launch

// A flag's standing once the re-measure is in (or not).
enum class FlagStatus { unconfirmed, confirmed, transient, link };
constexpr const char* status_name(FlagStatus s) {
  switch (s) {
    case FlagStatus::confirmed: return "confirmed";
    case FlagStatus::transient: return "transient";
    case FlagStatus::link: return "link";
    case FlagStatus::unconfirmed: break;
  }
  return "unconfirmed";
}

bool beyond(const GpuMetric& m, const Interval& ci, double tolerance) {
  return m.worse == Worse::higher ? ci.low > 1 + tolerance : ci.high < 1 - tolerance;
}

// Each GPU's values of metric `m` in phase `phase` (by launch), and its ratios
// to the median of the other GPUs' values of the same round.
struct Series {
  std::map<int, Values> values, ratios, references;
};

Series series(const RunRounds& run, std::size_t m, GpusPhase phase) {
  std::map<std::tuple<std::size_t, int>, std::map<int, double>> rounds;  // (launch, round) -> gpu -> value
  for (const GpuVisit& v : run.visits)
    if (v.phase == phase && v.values[m]) rounds[{v.launch, v.round}][v.gpu] = *v.values[m];
  Series s;
  for (const auto& [key, by_gpu] : rounds) {
    const std::size_t launch = std::get<0>(key);
    for (const auto& [gpu, value] : by_gpu) {
      s.values[gpu][launch].push_back(value);
      std::vector<double> others;
      for (const auto& [other, x] : by_gpu)
        if (other != gpu) others.push_back(x);
      if (others.empty()) continue;
      const double reference = summarize(others).median;
      s.ratios[gpu][launch].push_back(value / reference);
      s.references[gpu][launch].push_back(reference);
    }
  }
  return s;
}

// The link flags: a link read below its maximum, once per quantity below.
void link_flags(const RunRounds& run, Json& flags) {
  for (const auto& [gpu, l] : run.links) {
    if (!l.read || !l.below_max) continue;
    const std::string during = l.read_while.empty() ? "" : " (read during a " + l.read_while + ")";
    if (l.speed_gts && l.max_speed_gts && *l.speed_gts < *l.max_speed_gts)
      flags.push_back(flag_record(run, {gpu, "link_speed_gts", "GT/s", *l.speed_gts, *l.max_speed_gts, "link maximum",
                                        0, status_name(FlagStatus::link),
                                        "PCIe link speed " + number_text(*l.speed_gts) + " GT/s, below its maximum " +
                                            number_text(*l.max_speed_gts) + " GT/s" + during}));
    if (l.width && l.max_width && *l.width < *l.max_width)
      flags.push_back(flag_record(run,
                                  {gpu, "link_width", "lanes", static_cast<double>(*l.width),
                                   static_cast<double>(*l.max_width), "link maximum", 0, status_name(FlagStatus::link),
                                   "PCIe link width x" + std::to_string(*l.width) + ", below its maximum x" +
                                       std::to_string(*l.max_width) + during}));
  }
}

}  // namespace

Json node_verdict(const RunFiles& files, double tolerance) {
  const RunRounds run = read_run_rounds(files);
  std::set<int> gpus;
  for (const GpuVisit& v : run.visits) gpus.insert(v.gpu);
  Json verdict{{"tolerance", tolerance},
               {"gpus", gpus.size()},
               {"launches", run.launches_of(GpusPhase::measure)},
               {"remeasure_launches", run.launches_of(GpusPhase::remeasure)},
               {"reference", gpus.size() == 2 ? "the other GPU" : "the median of the node's other GPUs"},
               {"per_gpu", Json::array()},
               {"flags", Json::array()},
               {"anomalies", Json::array()},
               {"remeasure_gpus", Json::array()},
               {"notes", Json::array()}};
  if (gpus.empty())
    verdict["notes"].push_back("no gpus rounds in this run: no GPU numbers to compare (only the link is checked)");
  else if (gpus.size() == 1)
    verdict["notes"].push_back("one GPU: no other to compare it with (hetprobe check compares it with a baseline)");
  const std::string shared = shared_device(run.gpus);
  if (!shared.empty())
    verdict["notes"].push_back(shared +
                               ": no GPU is compared with itself, so no ratio is judged (each rank's "
                               "numbers are shown as measured)");
  std::map<int, Json> per_gpu;
  for (int gpu : gpus) per_gpu[gpu] = Json{{"gpu", gpu}, {"metrics", Json::object()}};
  std::set<int> remeasure;
  for (std::size_t m = 0; m < kGpuMetrics.size(); ++m) {
    const GpuMetric& metric = kGpuMetrics[m];
    const Series first = series(run, m, GpusPhase::measure), again = series(run, m, GpusPhase::remeasure);
    for (const auto& [gpu, values] : first.values) {
      const Estimate value = estimate(values);
      Json j{{"value", value.to_json()}, {"ratio", nullptr}, {"remeasure_ratio", nullptr}, {"state", "ok"}};
      const auto ratios = first.ratios.find(gpu);
      if (!shared.empty()) j["state"] = "not compared";
      if (ratios == first.ratios.end() || !shared.empty()) {
        per_gpu[gpu]["metrics"][metric.key] = j;
        continue;
      }
      const Estimate ratio = estimate(ratios->second);
      j["ratio"] = ratio.to_json();
      if (!ratio.ci95) j["state"] = "unresolved";
      if (ratio.ci95 && beyond(metric, *ratio.ci95, tolerance)) {
        const double reference = estimate(first.references.at(gpu)).median;
        std::string why = std::string(metric.label) + " " + number_text(value.median) + " " + metric.unit + " is " +
                          deviation_text(ratio.median - 1) + " " +
                          (gpus.size() == 2 ? "the other GPU's " : "the median of the node's other GPUs, ") +
                          number_text(reference) + " " + metric.unit + ": ratio " + ratio.text() +
                          ", beyond the tolerance of " + tolerance_text(tolerance);
        FlagStatus status = FlagStatus::unconfirmed;
        const auto later = again.ratios.find(gpu);
        if (later != again.ratios.end()) {
          const Estimate re = estimate(later->second);
          j["remeasure_ratio"] = re.to_json();
          status = re.ci95 && beyond(metric, *re.ci95, tolerance) ? FlagStatus::confirmed : FlagStatus::transient;
          why += status == FlagStatus::confirmed ? "; confirmed on re-measure: ratio " + re.text()
                                                 : "; not confirmed, a transient: on re-measure ratio " + re.text();
        } else {
          why += "; not re-measured";
          remeasure.insert(gpu);
        }
        j["state"] = status_name(status);
        Json flag = flag_record(run, {gpu, metric.key, metric.unit, value.median, reference,
                                      gpus.size() == 2 ? "the other GPU" : "node median", tolerance,
                                      status_name(status), why});
        flag["ratio"] = ratio.to_json();
        flag["remeasure_ratio"] = j["remeasure_ratio"];
        verdict["flags"].push_back(flag);
      }
      per_gpu[gpu]["metrics"][metric.key] = j;
    }
    for (int gpu : gpus)  // a number the device cannot time (launch + sync on the host backend)
      if (!first.values.count(gpu))
        per_gpu[gpu]["metrics"][metric.key] = Json{{"value", Estimate{}.to_json()},
                                                   {"ratio", nullptr},
                                                   {"remeasure_ratio", nullptr},
                                                   {"state", "not measured"}};
  }
  link_flags(run, verdict["flags"]);
  for (const Json& f : verdict["flags"])
    if (f.at("status") == "confirmed" || f.at("status") == "link") verdict["anomalies"].push_back(f);
  for (auto& [gpu, j] : per_gpu) verdict["per_gpu"].push_back(j);
  for (int gpu : remeasure) verdict["remeasure_gpus"].push_back(gpu);
  return verdict;
}

}  // namespace hetprobe
