// Each setup's speed-up over the layout's strongest baseline, paired round by
// round (the rounds of run_halo): per round, the baseline's median iteration
// time over the setup's, of the slowest rank's time per iteration; their
// median and its 95% interval (median_ci95 of the rounds' ratios), judged as
// every ratio is (base/effect.hpp). A launch's number; `hetprobe show --pool`
// pools launches (halo_launches.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/core/results.hpp"
#include "bench/halo/halo.hpp"

namespace hetprobe {

// The times a speed-up compares: one setup's per-iteration times (the slowest
// rank's) and each iteration's round.
struct HaloRoundTimes {
  std::vector<double> ns;
  std::vector<int> rounds;
  std::vector<double> medians(int count) const;  // per round of `count`, its iterations' median (NaN: none)
};
HaloRoundTimes round_times(const HaloRun& run, const std::vector<double>& slowest_rank_ns);

// The strongest baseline: the baseline setup with the lowest median time;
// nothing when no setup is a baseline or none has a time.
std::optional<std::size_t> strongest_baseline(const std::vector<HaloRun>& runs,
                                              const std::vector<HaloRoundTimes>& times);

// From the baseline's and the setup's round medians (HaloRoundTimes::medians):
// {"against": the baseline's setup label, "rounds": per round (null where a
// round lacks either), "median", "ci95": [low, high] or null under 6 rounds,
// "effect": speedup, slowdown or none (null without an interval)}: > 1 is
// faster than the baseline.
Json speedup_json(const std::string& against, const std::vector<double>& baseline_medians,
                  const std::vector<double>& setup_medians);

}  // namespace hetprobe
