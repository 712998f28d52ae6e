// What a ratio to a baseline says, judged on its 95% confidence interval: an
// effect is claimed only where the whole interval lies beyond a margin of "no
// effect" (Hoefler & Belli, SC15: no claim the interval does not support).
// The one place the headline, the tables, the plots and the gates read it.
#pragma once

#include <optional>
#include <vector>

#include "base/enum_table.hpp"
#include "base/stats.hpp"

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
// The same judgement of a speed-up's interval (old time / new time, > 1:
// faster): as the time ratio it inverts.
Effect classify_speedup(const Interval& ci95);

// A ratio pooled over launches (the unit of replication): the median of the
// launches' ratios, and, with 3 launches or more, a 95% interval from their
// spread: a Student-t interval of the mean log ratio, mapped back. With fewer
// launches there is no interval.
struct PooledRatio {
  double median = 0;
  std::optional<Interval> ci95;
  double min = 0, max = 0;  // the launches' spread
  std::size_t launches = 0;
  std::size_t degrees_of_freedom = 0;  // of the interval's t: its own k - 1, or the pool's
};
// One point alone: its own spread, k - 1 degrees of freedom (t(2) = 4.30 for
// 3 launches). Throws std::invalid_argument for no ratios or a ratio that is
// not > 0.
PooledRatio pool_launch_ratios(const std::vector<double>& ratios);
// Points measured side by side over the same launches (one command's points
// of one message size): the launch-to-launch variance of the log ratio is
// pooled over them, sum of squares over sum of (k - 1), as one-way ANOVA's
// within-point mean square, and each point's interval takes t with the pool's
// degrees of freedom. Three launches of one point alone gave intervals so wide
// that a 1.15x slowdown on an H100 was claimed in one rerun and not in the
// next; its neighbours' spread (docs/metrics.md) is about the same, so it
// lends the degrees of freedom. A point whose own spread is larger keeps it,
// with its own k - 1 degrees of freedom. Points under 2 launches add nothing
// to the pool; no interval under 3 launches, pooled or not.
std::vector<PooledRatio> pool_launch_points(const std::vector<std::vector<double>>& points);

}  // namespace hetprobe
