#include "bench/halo/halo_speedup.hpp"

#include "base/effect.hpp"
#include "base/stats.hpp"
#include "bench/core/rounds.hpp"

namespace hetprobe {

HaloRoundTimes round_times(const HaloRun& run, const std::vector<double>& slowest_rank_ns) {
  HaloRoundTimes t;
  for (std::size_t i = 0; i < run.iterations.size() && i < slowest_rank_ns.size(); ++i) {
    t.ns.push_back(slowest_rank_ns[i]);
    t.rounds.push_back(run.iterations[i].round);
  }
  return t;
}

std::optional<std::size_t> strongest_baseline(const std::vector<HaloRun>& runs,
                                              const std::vector<HaloRoundTimes>& times) {
  std::optional<std::size_t> best;
  double best_ns = 0;
  for (std::size_t i = 0; i < runs.size() && i < times.size(); ++i) {
    if (runs[i].setup.variant != HaloVariant::baseline || times[i].ns.empty()) continue;
    const double median = summarize(times[i].ns).median;
    if (!best || median < best_ns) best = i, best_ns = median;
  }
  return best;
}

std::vector<double> HaloRoundTimes::medians(int count) const { return round_medians(ns, rounds, count); }

Json speedup_json(const std::string& against, const std::vector<double>& baseline_medians,
                  const std::vector<double>& setup_medians) {
  std::vector<double> ratios;
  Json j{{"against", against},
         {"rounds", paired_rounds(baseline_medians, setup_medians, ratios)},
         {"median", nullptr},
         {"ci95", nullptr},
         {"effect", nullptr}};
  if (ratios.empty()) return j;
  j["median"] = summarize(ratios).median;
  if (const auto ci = median_ci95(ratios)) {
    j["ci95"] = {ci->low, ci->high};
    j["effect"] = to_string(classify_speedup(*ci));
  }
  return j;
}

}  // namespace hetprobe
