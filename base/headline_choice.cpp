#include "base/headline_choice.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

namespace hetprobe {

namespace {

// The index, among `indices`, of the point whose ratio `better` prefers over
// every other's; the first of equals.
template <class Better>
std::size_t best_of(std::span<const JudgedPoint> points, const std::vector<std::size_t>& indices, Better better) {
  std::size_t best = indices.front();
  for (std::size_t i : indices)
    if (better(points[i].ratio, points[best].ratio)) best = i;
  return best;
}

std::vector<std::size_t> claiming(std::span<const JudgedPoint> points, Effect effect) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (points[i].effect == effect) out.push_back(i);
  return out;
}

void check_ratios(std::span<const JudgedPoint> points) {
  for (const JudgedPoint& p : points)
    if (std::isnan(p.ratio)) throw std::invalid_argument("a headline point's ratio is NaN");
}

// The claimed slowdowns other than `chosen` whose interval reaches its low end.
std::vector<std::size_t> near_ties(std::span<const JudgedPoint> points, const std::vector<std::size_t>& claimed,
                                   std::size_t chosen) {
  std::vector<std::size_t> ties;
  if (!points[chosen].ci95) return ties;
  for (std::size_t i : claimed)
    if (i != chosen && points[i].ci95 && points[i].ci95->high >= points[chosen].ci95->low) ties.push_back(i);
  std::stable_sort(ties.begin(), ties.end(),
                   [&](std::size_t a, std::size_t b) { return points[a].ratio > points[b].ratio; });
  return ties;
}

const auto kLarger = [](double a, double b) { return a > b; };

}  // namespace

std::optional<SlowdownChoice> choose_slowdown(std::span<const JudgedPoint> points) {
  if (points.empty()) return std::nullopt;
  check_ratios(points);
  const std::vector<std::size_t> claimed = claiming(points, Effect::slowdown);
  SlowdownChoice choice;
  if (!claimed.empty()) {
    choice.chosen = best_of(points, claimed, kLarger);
    choice.verdict = HeadlineVerdict::claimed;
    choice.near_ties = near_ties(points, claimed, choice.chosen);
    return choice;
  }
  std::vector<std::size_t> all(points.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  choice.chosen = best_of(points, all, kLarger);
  const bool judged = std::any_of(points.begin(), points.end(), [](const JudgedPoint& p) { return p.effect; });
  choice.verdict = judged ? HeadlineVerdict::within_noise : HeadlineVerdict::no_interval;
  return choice;
}

std::optional<SpeedupChoice> choose_speedup(std::span<const JudgedPoint> points) {
  check_ratios(points);
  const std::vector<std::size_t> ups = claiming(points, Effect::speedup);
  if (ups.empty()) return std::nullopt;
  return SpeedupChoice{best_of(points, ups, [](double a, double b) { return a < b; }), ups.size()};
}

std::optional<std::size_t> largest_ratio(std::span<const double> ratios) {
  std::vector<JudgedPoint> points;
  for (double r : ratios) points.push_back({r, std::nullopt, std::nullopt});
  const std::optional<SlowdownChoice> choice = choose_slowdown(points);
  if (!choice) return std::nullopt;
  return choice->chosen;
}

std::optional<std::size_t> fastest_time(std::span<const double> medians_ns) {
  std::vector<double> negated;  // the largest of the negated times is the smallest time, the first of equals
  for (double t : medians_ns) negated.push_back(-t);
  return largest_ratio(negated);
}

std::vector<std::size_t> most_launched_parts(const std::vector<std::vector<std::size_t>>& launches) {
  std::vector<std::size_t> most_of_each;
  for (const auto& part : launches)
    most_of_each.push_back(part.empty() ? 0 : *std::max_element(part.begin(), part.end()));
  const std::size_t most = most_of_each.empty() ? 0 : *std::max_element(most_of_each.begin(), most_of_each.end());
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < launches.size(); ++i)
    if (!launches[i].empty() && most_of_each[i] == most) out.push_back(i);
  return out;
}

std::vector<LayoutRatio> typical_ratio_per_layout(const std::vector<LayoutRatio>& points) {
  std::map<std::string, std::vector<double>> by_layout;  // name order
  for (const LayoutRatio& p : points) by_layout[p.layout].push_back(p.ratio);
  std::vector<LayoutRatio> out;
  for (const auto& [layout, ratios] : by_layout) out.push_back({layout, summarize(ratios).median});
  return out;
}

std::optional<double> triad_share_percent(std::optional<double> traffic_gbs, double triad_gbs) {
  if (!traffic_gbs || !std::isfinite(*traffic_gbs) || !std::isfinite(triad_gbs) || !(triad_gbs > 0))
    return std::nullopt;
  return 100 * *traffic_gbs / triad_gbs;
}

}  // namespace hetprobe
