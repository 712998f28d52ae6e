// A run's GPUs against a known-good node's runs (node_verdict.hpp says the rules).
#include <algorithm>
#include <cmath>
#include <map>

#include "base/errors.hpp"
#include "base/number_text.hpp"
#include "base/text_list.hpp"
#include "bench/gpus/gpu_rounds.hpp"
#include "bench/gpus/node_verdict.hpp"

namespace hetprobe {

namespace {

std::set<int> gpus_of(const RunRounds& run) {
  std::set<int> gpus;
  for (const GpuVisit& v : run.visits) gpus.insert(v.gpu);
  return gpus;
}

// Why `a` and `b` are not of one node (hosts, GPU count, backend, models), or "".
std::string other_node(const RunRounds& a, const RunRounds& b, bool hosts) {
  if (hosts && a.hosts != b.hosts) return "host " + comma_list(a.hosts) + " and host " + comma_list(b.hosts);
  if (gpus_of(a).size() != gpus_of(b).size())
    return std::to_string(gpus_of(a).size()) + " GPU(s) and " + std::to_string(gpus_of(b).size());
  if (a.backends != b.backends) return "backend " + comma_list(a.backends) + " and " + comma_list(b.backends);
  for (const auto& [gpu, id] : a.gpus) {
    const auto other = b.gpus.find(gpu);
    if (other != b.gpus.end() && other->second.model != id.model)
      return "GPU " + std::to_string(gpu) + " is '" + id.model + "' and '" + other->second.model + "'";
  }
  return "";
}

RunRounds read_checked(const RunFiles& files, const std::string& what) {
  RunRounds run = read_run_rounds(files);
  if (run.visits.empty())
    throw usage_error(what + " " + run.where +
                      " has no gpus rounds (hetprobe characterize measures them since schema 9; run it again "
                      "without --skip gpus)");
  return run;
}

std::vector<RunRounds> read_baselines(const std::vector<RunFiles>& baselines) {
  if (baselines.empty()) throw usage_error("--baseline: give at least one run directory");
  std::vector<RunRounds> out;
  for (const RunFiles& b : baselines) out.push_back(read_checked(b, "--baseline"));
  for (std::size_t i = 1; i < out.size(); ++i)
    if (const std::string why = other_node(out.front(), out[i], true); !why.empty())
      throw usage_error("--baseline " + out.front().where + " and " + out[i].where + " are not runs of one node (" +
                        why + "): give baseline runs of the same node");
  return out;
}

// The values of metric `m` on `gpu` in the measure phase, by launch; launches
// of several runs are told apart by `offset`.
void add_values(const RunRounds& run, int gpu, std::size_t m, std::size_t offset,
                std::map<std::size_t, std::vector<double>>& out) {
  for (const GpuVisit& v : run.visits)
    if (v.gpu == gpu && v.phase == GpusPhase::measure && v.values[m]) out[offset + v.launch].push_back(*v.values[m]);
}

Json outside(int gpu, const RunRounds& run, const std::string& metric, const std::string& unit, double value,
             double reference, double tolerance, const std::string& why) {
  return flag_record(run, {gpu, metric, unit, value, reference, "baseline", tolerance, "outside", why});
}

// A link trained lower than the baseline's (same rank): outside, as read.
void link_outside(const RunRounds& run, const std::vector<RunRounds>& bases, double tolerance, Json& out,
                  std::size_t& compared) {
  for (const auto& [gpu, l] : run.links) {
    for (const RunRounds& b : bases) {
      const auto other = b.links.find(gpu);
      if (!l.read || other == b.links.end() || !other->second.read) continue;
      const LinkReading& ref = other->second;
      if (l.speed_gts && ref.speed_gts) {
        ++compared;
        if (*l.speed_gts < *ref.speed_gts)
          out.push_back(outside(gpu, run, "link_speed_gts", "GT/s", *l.speed_gts, *ref.speed_gts, tolerance,
                                "PCIe link speed " + number_text(*l.speed_gts) + " GT/s, below the baseline's " +
                                    number_text(*ref.speed_gts) + " GT/s"));
      }
      if (l.width && ref.width) {
        ++compared;
        if (*l.width < *ref.width)
          out.push_back(outside(gpu, run, "link_width", "lanes", *l.width, *ref.width, tolerance,
                                "PCIe link width x" + std::to_string(*l.width) + ", below the baseline's x" +
                                    std::to_string(*ref.width)));
      }
      break;  // the first baseline with a reading is the reference
    }
  }
}

// A launch is the unit of replication: the same launch twice (a copy of a
// run beside it, a run given as its own baseline) would be counted as two,
// narrowing the range it is judged by. Its gpus header says which launch it
// is, as `show --pool` asks; a usage Error names both files.
void refuse_repeated_launches(const RunFiles& run, const std::vector<RunFiles>& baselines) {
  std::map<std::string, std::string> seen;  // a gpus header, as written -> whose file it is
  const auto visit = [&](const RunFiles& files, const std::string& what) {
    for (const ResultsFile& f : files)
      for (const Json& r : f.records)
        if (r.is_object() && r.value("record", Json()) == "header" && r.value("probe", Json()) == "gpus")
          if (const auto [it, fresh] = seen.emplace(r.dump(), what + " " + f.path.string()); !fresh)
            throw usage_error(what + " " + f.path.string() + " is the launch of " + it->second +
                              " (the same header): a launch is counted once; give each once, and never a run "
                              "as its own baseline");
  };
  visit(run, "the run's");
  for (const RunFiles& b : baselines) visit(b, "the baseline's");
}

}  // namespace

void check_baseline_node(const NodeIdentity& node, const std::vector<RunFiles>& baselines, const std::string& where) {
  const std::vector<RunRounds> bases = read_baselines(baselines);
  const RunRounds& b = bases.front();
  if (static_cast<std::size_t>(node.gpus) != gpus_of(b).size())
    throw usage_error("the baseline has " + std::to_string(gpus_of(b).size()) + " GPU(s) and " + where + " " +
                      std::to_string(node.gpus) + ": compare nodes of the same GPUs");
  if (!node.backend.empty() && !b.backends.empty() && !b.backends.count(node.backend))
    throw usage_error("the baseline ran on backend " + comma_list(b.backends) + " and " + where + " on " +
                      node.backend);
  for (std::size_t gpu = 0; gpu < node.names.size(); ++gpu) {
    const auto other = b.gpus.find(static_cast<int>(gpu));
    const std::string mine = device_model(node.names[gpu]);
    if (!mine.empty() && other != b.gpus.end() && other->second.model != mine)
      throw usage_error("GPU " + std::to_string(gpu) + " is '" + mine + "' in " + where + " and '" +
                        other->second.model + "' in the baseline");
  }
}

Json baseline_verdict(const RunFiles& files, const std::vector<RunFiles>& baselines, double tolerance) {
  const std::vector<RunRounds> bases = read_baselines(baselines);
  const RunRounds run = read_checked(files, "the run");
  if (const std::size_t mine = gpus_of(run).size(), theirs = gpus_of(bases.front()).size(); mine != theirs)
    throw usage_error("the baseline " + bases.front().where + " has " + std::to_string(theirs) +
                      " GPU(s) and the run " + run.where + " " + std::to_string(mine) +
                      ": compare nodes of the same GPUs");
  if (const std::string why = other_node(run, bases.front(), false); !why.empty())
    throw usage_error("the run " + run.where + " and the baseline " + bases.front().where +
                      " measured different GPUs (" + why + "): compare runs of the same node's GPUs");
  std::size_t baseline_launches = 0;
  for (const RunRounds& b : bases) baseline_launches += b.launches_of(GpusPhase::measure);
  if (baseline_launches < 2)
    throw usage_error(
        "the baseline has 1 launch of the gpus step in all: its launch-to-launch spread is not "
        "measured, so no number can be judged against it; give a run of 2 launches or more "
        "(characterize's default is 3) or several runs");
  refuse_repeated_launches(files, baselines);  // after what each says of itself: the more telling words
  Json verdict{{"tolerance", tolerance},   {"baseline_runs", bases.size()}, {"baseline_launches", baseline_launches},
               {"per_gpu", Json::array()}, {"outside", Json::array()},      {"not_judged", Json::array()}};
  std::size_t compared = 0;
  for (int gpu : gpus_of(bases.front())) {
    Json mine{{"gpu", gpu}, {"metrics", Json::object()}};
    for (std::size_t m = 0; m < kGpuMetrics.size(); ++m) {
      const GpuMetric& metric = kGpuMetrics[m];
      std::map<std::size_t, std::vector<double>> theirs, ours;
      std::size_t offset = 0;
      for (const RunRounds& b : bases) {
        add_values(b, gpu, m, offset, theirs);
        offset += b.launches_of(GpusPhase::measure) + b.launches_of(GpusPhase::remeasure);
      }
      if (theirs.empty()) continue;
      add_values(run, gpu, m, 0, ours);
      const Estimate base = estimate(theirs), value = estimate(ours);
      const auto [lo, hi] = std::minmax_element(base.launch_medians.begin(), base.launch_medians.end());
      const bool higher = metric.worse == Worse::higher;
      double worst = higher ? *hi : *lo;
      if (base.ci95) worst = higher ? std::max(worst, base.ci95->high) : std::min(worst, base.ci95->low);
      const double spread = (*hi - *lo) / base.median;
      mine["metrics"][metric.key] = Json{{"value", value.to_json()},
                                         {"baseline", base.to_json()},
                                         {"baseline_worst", worst},
                                         {"baseline_launch_spread", spread}};
      const std::string against = "the baselines' worst " + number_text(worst) + " " + metric.unit + " (their " +
                                  std::to_string(base.launch_medians.size()) + " launches: " + range_text(*lo, *hi) +
                                  " " + metric.unit + ", a spread of " + tolerance_text(spread) + ")";
      if (value.n == 0) {
        verdict["outside"].push_back(outside(gpu, run, metric.key, metric.unit, std::nan(""), worst, tolerance,
                                             std::string(metric.label) + ": no value in this run (" + against + ")"));
        continue;
      }
      ++compared;
      if (!value.ci95) {
        verdict["not_judged"].push_back(gpu_name(gpu, run) + ": " + metric.label + " " + value.text(metric.unit) +
                                        ": too few rounds for an interval");
        continue;
      }
      const bool worse = higher ? value.ci95->low > worst * (1 + tolerance)
                                : value.ci95->high < worst * (1 - tolerance);
      if (worse)
        verdict["outside"].push_back(outside(gpu, run, metric.key, metric.unit, value.median, worst, tolerance,
                                             std::string(metric.label) + " " + value.text(metric.unit) + " is " +
                                                 deviation_text(value.median / worst - 1) + " " + against +
                                                 ", beyond the tolerance of " + tolerance_text(tolerance)));
    }
    verdict["per_gpu"].push_back(mine);
  }
  link_outside(run, bases, tolerance, verdict["outside"], compared);
  verdict["compared"] = compared;
  return verdict;
}

}  // namespace hetprobe
