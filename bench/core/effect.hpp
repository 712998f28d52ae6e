// What a ratio to a baseline says, judged on its 95% confidence interval: an
// effect is claimed only where the whole interval lies beyond a margin of "no
// effect" (Hoefler & Belli, SC15: no claim the interval does not support).
// The one place the headline, the tables, the plots and the gates read it.
#pragma once

#include <optional>
#include <vector>

#include "bench/core/enum_table.hpp"
#include "bench/core/stats.hpp"

namespace hetprobe {

// A slowdown is an interval wholly above 1 + margin, a speed-up one wholly
// below 1 - margin: 5% is about the launch-to-launch spread of a paired
// ratio on a quiet node (docs/metrics.md).
inline constexpr double kEffectMargin = 0.05;

enum class Effect { none, slowdown, speedup };
inline constexpr EnumTable<Effect, 3> kEffectNames{"effect",
                                                   {{{Effect::none, "none"},
                                                     {Effect::slowdown, "slowdown"},
                                                     {Effect::speedup, "speedup"}}}};
inline const char* to_string(Effect e) { return kEffectNames.name(e); }

Effect classify_ratio(const Interval& ci95);

// A ratio pooled over launches (the unit of replication): the median of the
// launches' ratios, and, with 3 launches or more, a 95% interval from their
// spread: a Student-t interval of the mean log ratio (k - 1 degrees of
// freedom), mapped back. With fewer launches there is no interval.
struct PooledRatio {
  double median = 0;
  std::optional<Interval> ci95;
  double min = 0, max = 0;  // the launches' spread
  std::size_t launches = 0;
};
// Throws std::invalid_argument for no ratios or a ratio that is not > 0.
PooledRatio pool_launch_ratios(const std::vector<double>& ratios);

}  // namespace hetprobe
