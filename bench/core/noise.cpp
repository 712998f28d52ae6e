#include "bench/core/noise.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace hetprobe {

namespace {

constexpr int kMaxCpus = 1 << 16;  // beyond any node: a list naming more is not an affinity list

// A number as a sentence shows it: 3 significant digits, whole numbers from 1000 on.
std::string num(double x) {
  char text[48];
  std::snprintf(text, sizeof text, std::abs(x) >= 1000 ? "%.0f" : "%.3g", x);
  return text;
}

// "1 CPU", "2 CPUs".
std::string counted(int n, const std::string& noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

std::optional<double> procs_running() {
  std::ifstream in("/proc/stat");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("procs_running ", 0) == 0) return std::strtod(line.c_str() + 14, nullptr);
  return std::nullopt;
}

std::optional<std::array<double, 3>> load_average() {
  std::ifstream in("/proc/loadavg");
  std::array<double, 3> l{};
  if (in >> l[0] >> l[1] >> l[2]) return l;
  return std::nullopt;
}

// Runnable threads (state R) by the CPU whose run queue holds them (field 39
// of /proc/PID/task/TID/stat), of every thread /proc shows; threads that end
// while being read are skipped.
std::vector<int> runnable_by_cpu() {
  namespace fs = std::filesystem;
  std::vector<int> by_cpu;
  std::error_code ec;
  for (fs::directory_iterator p("/proc", ec), end; !ec && p != end; p.increment(ec)) {
    const std::string pid = p->path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code task_ec;
    for (fs::directory_iterator t(p->path() / "task", task_ec), tend; !task_ec && t != tend; t.increment(task_ec)) {
      std::ifstream in(t->path() / "stat");
      std::string stat;
      if (!std::getline(in, stat)) continue;
      const std::size_t close = stat.rfind(')');  // the command name may hold spaces and parentheses
      if (close == std::string::npos) continue;
      std::istringstream fields(stat.substr(close + 1));
      std::string state, field;
      fields >> state;
      for (int f = 4; f < 39; ++f) fields >> field;  // on to field 39: the CPU
      long cpu = -1;
      if (state != "R" || !(fields >> cpu) || cpu < 0 || cpu >= kMaxCpus) continue;
      if (cpu >= static_cast<long>(by_cpu.size())) by_cpu.resize(static_cast<std::size_t>(cpu) + 1, 0);
      ++by_cpu[static_cast<std::size_t>(cpu)];
    }
  }
  return by_cpu;
}

double median(std::vector<double> v) { return v.empty() ? 0 : summarize(v).median; }

// The number read from a summary (summary_json), if there is one.
std::optional<double> field(const Json& summary, const char* key) {
  if (!summary.is_object()) return std::nullopt;
  const auto it = summary.find(key);
  if (it == summary.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

NodeReadings read_node_readings(int samples) {
  NodeReadings r;
  r.online_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  for (int i = 0; i < samples; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    if (auto n = procs_running()) r.runnable_samples.push_back(*n);
    r.runnable_by_cpu.push_back(runnable_by_cpu());
  }
  r.load_average = load_average();
  return r;
}

Json conditions_json(const NodeReadings& r) {
  const int cpus = static_cast<int>(std::count(r.run_cpus.begin(), r.run_cpus.end(), true));
  Json c{{"cpus", cpus}, {"online_cpus", r.online_cpus}, {"ranks_on_node", r.run_ranks}};
  Json warnings = Json::array();
  std::optional<double> busy;
  if (!r.runnable_samples.empty()) {
    const double node = median(r.runnable_samples);
    const double others = std::max(0.0, node - r.run_ranks);
    const double share = r.online_cpus > cpus ? static_cast<double>(cpus) / r.online_cpus : 1.0;
    busy = r.run_ranks + others * share;
    c["runnable_threads"] = {{"source", "/proc/stat procs_running, whole node"},
                             {"samples", r.runnable_samples},
                             {"median", node}};
  } else {
    c["runnable_threads"] = nullptr;
  }
  if (!r.runnable_by_cpu.empty()) {
    std::vector<double> on_cpus;
    for (const std::vector<int>& by_cpu : r.runnable_by_cpu) {
      int n = 0;
      for (std::size_t cpu = 0; cpu < by_cpu.size() && cpu < r.run_cpus.size(); ++cpu)
        if (r.run_cpus[cpu]) n += by_cpu[cpu];
      on_cpus.push_back(n);
    }
    const double seen = median(on_cpus);
    busy = std::max(busy.value_or(0.0), seen);
    c["runnable_threads_on_cpus"] = {{"source", "/proc/*/task/*/stat: state R, on a run queue of these CPUs"},
                                     {"samples", on_cpus},
                                     {"median", seen}};
  } else {
    c["runnable_threads_on_cpus"] = nullptr;
  }
  c["busy_threads_on_cpus"] = busy ? Json(*busy) : Json(nullptr);
  c["other_busy_threads_on_cpus"] = busy ? Json(std::max(0.0, *busy - r.run_ranks)) : Json(nullptr);
  if (busy && cpus > 0 && *busy > cpus)
    warnings.push_back(num(*busy) + " runnable threads on the " + counted(cpus, "CPU") + " of this run (" +
                       num(std::max(0.0, *busy - r.run_ranks)) + " besides its " + counted(r.run_ranks, "rank") +
                       "; threshold: one per CPU): other work shares these CPUs, so latencies include scheduler "
                       "delays");
  c["load_average"] = r.load_average ? Json(*r.load_average) : Json(nullptr);
  if (r.load_average && r.online_cpus > 0 && (*r.load_average)[0] > r.online_cpus)
    warnings.push_back("1-minute load average " + num((*r.load_average)[0]) + " is above the node's " +
                       counted(r.online_cpus, "online CPU") +
                       " (threshold: one per CPU): the node was busy, so "
                       "timings may include scheduler delays");
  return Json{{"conditions", c}, {"warnings", warnings}};
}

Json spread_warnings(const Json& summary, const std::string& reading, double ns_per_sample) {
  Json warnings = Json::array();
  const auto med = field(summary, "median"), p90 = field(summary, "p90");
  if (!med || !p90 || !(*med > 0)) return warnings;
  if (*p90 > kSpreadRatio * *med && (*p90 - *med) * ns_per_sample > kSpreadFloorNs)
    warnings.push_back(reading + " p90 is " + num(*p90 / *med) + "x the median (threshold " + num(kSpreadRatio) +
                       "x, and " + num(kSpreadFloorNs * 1e-3) +
                       " us above it): scheduler noise dominates these samples");
  return warnings;
}

Json rate_spread_warnings(const Summary& rates, const std::string& reading) {
  Json warnings = Json::array();
  if (rates.n == 0 || !(rates.median > 0)) return warnings;
  if (rates.p10 * kRateSpreadRatio < rates.median)
    warnings.push_back(reading + " p10 is " + num(rates.p10 / rates.median) + "x the median (threshold 1/" +
                       num(kRateSpreadRatio) + "): other work slowed some samples down");
  return warnings;
}

Json clock_fit_warnings(double precision_ns, double residual_rms_ns, double span_ns, double drift_ppm,
                        bool check_within_precision, double check_error_ns, double check_precision_ns) {
  Json warnings = Json::array();
  if (residual_rms_ns > precision_ns)
    warnings.push_back("residual_rms_ns " + num(residual_rms_ns) + " is above the fit's precision_ns " +
                       num(precision_ns) + " (threshold 1x): stamps were delayed, not only bracketed");
  if (!check_within_precision)
    warnings.push_back("the check missed its prediction by " + num(std::abs(check_error_ns)) +
                       " ns, more than its precision of " + num(check_precision_ns) +
                       " ns: the fit does not hold over time on this machine");
  if (span_ns > 0) {
    const double uncertainty = 2 * precision_ns / span_ns * 1e6;
    if (uncertainty > kDriftUncertaintyPpm)
      warnings.push_back("drift_ppm " + num(drift_ppm) + " is uncertain by about " + num(uncertainty) +
                         " ppm (2 x precision_ns over the span; threshold " + num(kDriftUncertaintyPpm) +
                         " ppm): the drift says nothing beyond that");
  }
  return warnings;
}

Json below_step_warnings(double value_ns, const std::string& reading, double step_ns, const std::string& step,
                         const std::string& meaning) {
  Json warnings = Json::array();
  if (std::isfinite(value_ns) && std::isfinite(step_ns) && step_ns > 0 && value_ns < step_ns)
    warnings.push_back(reading + " is " + num(value_ns / step_ns) + "x " + step + " (" + num(step_ns) +
                       " ns; threshold 1x): " + meaning);
  return warnings;
}

std::vector<bool> parse_cpu_list(const std::string& text) {
  std::vector<bool> cpus;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    int lo = 0, hi = 0;
    char dash = 0;
    std::istringstream range(item);
    if (!(range >> lo) || lo < 0) continue;
    hi = lo;
    if (range >> dash && (dash != '-' || !(range >> hi) || hi < lo)) continue;
    if (hi >= kMaxCpus) continue;
    if (hi >= static_cast<int>(cpus.size())) cpus.resize(static_cast<std::size_t>(hi) + 1, false);
    for (int c = lo; c <= hi; ++c) cpus[static_cast<std::size_t>(c)] = true;
  }
  return cpus;
}

}  // namespace hetprobe
