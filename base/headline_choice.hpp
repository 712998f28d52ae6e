// The interference headline's choices, made once for the report: which point
// it names and on what grounds, the slowdowns as large within the noise, the
// fastest speed-up, the steps it rests on, and the numbers printed beside it
// (the typical ratio per layout, the GPU traffic's share of triad); and the
// notify headline's fastest order. Python's report (report/interference_headline.py,
// report/headline.py) reads them through _core and only writes the text.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/effect.hpp"
#include "base/enum_table.hpp"
#include "base/stats.hpp"

namespace hetprobe {

// A point as the headline weighs it: its ratio to SSB (a median; not NaN),
// its 95% interval and what the interval claims (classify_ratio, as the
// record or the pool of launches wrote it). Neither without an interval: a
// file from before the rounds, or a point pooled over 2 launches.
struct JudgedPoint {
  double ratio = 0;
  std::optional<Interval> ci95;
  std::optional<Effect> effect;
};

// What the headline may say of its point: a slowdown its interval supports;
// no slowdown beyond noise (intervals, none wholly above 1 + kEffectMargin);
// or no interval to judge by (its largest median is shown as it is).
enum class HeadlineVerdict { claimed, within_noise, no_interval };
inline constexpr EnumTable<HeadlineVerdict, 3>
    kHeadlineVerdictNames{"headline verdict",
                          {{{HeadlineVerdict::claimed, "claimed", EnumUse::internal},
                            {HeadlineVerdict::within_noise, "within_noise", EnumUse::internal},
                            {HeadlineVerdict::no_interval, "no_interval", EnumUse::internal}}}};
inline const char* to_string(HeadlineVerdict v) { return kHeadlineVerdictNames.name(v); }

struct SlowdownChoice {
  std::size_t chosen = 0;  // index into the points
  HeadlineVerdict verdict = HeadlineVerdict::no_interval;
  // Claimed: the other claimed slowdowns whose interval reaches the chosen
  // one's low end, so which is largest is within the noise (a rerun may name
  // another). Largest ratio first, equal ratios in the points' order; every
  // one of them (the report shows a few). Empty unless claimed.
  std::vector<std::size_t> near_ties;
};

// The largest ratio among the points that claim a slowdown; without one, the
// largest ratio of all, within_noise where any point has an interval's
// verdict and no_interval where none has. Of equal ratios, the first.
// nullopt for no points; std::invalid_argument for a ratio that is NaN.
std::optional<SlowdownChoice> choose_slowdown(std::span<const JudgedPoint> points);

struct SpeedupChoice {
  std::size_t fastest = 0;  // the smallest ratio among the speed-ups (the first of equals)
  std::size_t count = 0;    // how many points claim a speed-up
};
// The points whose interval lies wholly below 1 - kEffectMargin (not
// expected: the report asks why); nullopt where none does.
std::optional<SpeedupChoice> choose_speedup(std::span<const JudgedPoint> points);

// The index of the largest ratio (the first of equals): a file's worst median
// slowdown where there are no intervals to judge by, and the paper's writer's
// largest ratio. nullopt for none; std::invalid_argument for a NaN.
std::optional<std::size_t> largest_ratio(std::span<const double> ratios);

// The index of the smallest time (the first of equals): the notify headline's
// fastest flag order, of the CPU->GPU->CPU round trips' medians. nullopt for
// none; std::invalid_argument for a NaN.
std::optional<std::size_t> fastest_time(std::span<const double> medians_ns);

// The parts (interference steps) measured in the most launches, by index in
// the order given; each part as its points' launch counts, a part's launches
// being its points' most. An empty part is measured in none. The headline
// rests on them: one launch's interval over its rounds misses the noise
// between launches that an interval over three launches holds.
std::vector<std::size_t> most_launched_parts(const std::vector<std::vector<std::size_t>>& launches);

// A ratio to SSB and the layout of its point.
struct LayoutRatio {
  std::string layout;
  double ratio = 0;
};
// Each layout's typical ratio: the median (base/stats.hpp) of its points'
// ratios over sizes and access, layouts in name order. std::invalid_argument
// for a NaN ratio.
std::vector<LayoutRatio> typical_ratio_per_layout(const std::vector<LayoutRatio>& points);

// A point's GPU traffic during the sends as a percentage of the host's best
// STREAM triad (GB/s both): 100 x traffic / triad. nullopt where the point has
// no traffic reading (none, or not a finite number) or the triad is not a
// finite number above 0.
std::optional<double> triad_share_percent(std::optional<double> traffic_gbs, double triad_gbs);

}  // namespace hetprobe
