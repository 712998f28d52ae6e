// A reading pooled over launches, the unit of replication: each launch's
// value, their median and a 95% interval, with what the interval is over.
// One launch keeps its own interval (over its rounds, or its samples); from 3
// launches on, the interval is from the spread between them (base/effect.hpp:
// a Student-t interval of the mean log value, mapped back); 2 launches give
// none. A ratio's effect is what its interval claims (classify_ratio).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "base/effect.hpp"
#include "base/enum_table.hpp"
#include "base/stats.hpp"
#include "bench/core/record_field.hpp"
#include "bench/core/results.hpp"

namespace hetprobe {

// What a pooled reading's 95% interval is over.
enum class IntervalOver { launches, rounds, samples };
inline constexpr EnumTable<IntervalOver, 3> kIntervalOverNames{"interval basis",
                                                               {{{IntervalOver::launches, "launches"},
                                                                 {IntervalOver::rounds, "rounds"},
                                                                 {IntervalOver::samples, "samples"}}}};
inline const char* to_string(IntervalOver over) { return kIntervalOverNames.name(over); }

// One launch's value of a reading, and the interval that launch gives it
// alone (and over what), where it has one.
struct LaunchReading {
  std::optional<double> value;
  std::optional<Interval> ci95;
  IntervalOver ci95_over = IntervalOver::rounds;
};

struct PooledReading {
  std::vector<std::optional<double>> per_launch;  // each launch's, in launch order; none where it lacks it
  std::optional<double> median;                   // over the launches that have one
  std::optional<double> min, max;
  std::optional<Interval> ci95;
  std::optional<IntervalOver> ci95_over;  // set exactly when ci95 is
  std::optional<Effect> effect;           // ratios only: what ci95 claims (classify_ratio)
};

// The readings of one point over its launches, pooled alone (absolute
// times, traffic): a single launch's own interval stands; from 3 launches
// with values above 0, an interval over the launches.
PooledReading pool_reading(const std::vector<LaunchReading>& launches);

// Ratios of points measured side by side over the same launches (one size of
// one command), each point's launches' readings: a point of one launch keeps
// its own interval and effect; of several, the median of their ratios and,
// from 3 launches, the interval of base/effect.hpp's pool_launch_points, the
// launches' variance pooled over the points.
std::vector<PooledReading> pool_ratios(const std::vector<std::vector<LaunchReading>>& points);

// {"median", "ci95": [low, high] or null, "ci95_over", "min", "max",
// "per_launch": [...]} and, for a ratio, "effect"; nulls where there is none.
Json to_json(const PooledReading& reading, bool ratio);

// The pooled reading at `path` of an aggregate record, as to_json writes it
// (null or absent: none); a malformed one is a usage Error naming the field.
PooledReading pooled_reading_at(const RecordRef& r, const std::string& path);

}  // namespace hetprobe
