#include "bench/interference/interference_headline.hpp"

#include <algorithm>
#include <map>

namespace hetprobe {

namespace {

bool is_in(const std::string& step, const std::vector<std::string>& steps) {
  return std::find(steps.begin(), steps.end(), step) != steps.end();
}

// A load point with a ratio: what the headline weighs.
bool candidate(const InterferenceAggregate& a) {
  return a.key.layout != Layout::SSB && a.ratio_to_ssb.median.has_value();
}

JudgedPoint judged(const InterferenceAggregate& a) {
  return {*a.ratio_to_ssb.median, a.ratio_to_ssb.ci95, a.ratio_to_ssb.effect};
}

std::optional<SlowdownPick> pick_slowdown(const std::vector<InterferenceAggregate>& a,
                                          const std::vector<std::size_t>& among) {
  std::vector<JudgedPoint> points;
  for (std::size_t i : among) points.push_back(judged(a[i]));
  const std::optional<SlowdownChoice> c = choose_slowdown(points);
  if (!c) return std::nullopt;
  SlowdownPick pick{among[c->chosen], c->verdict, {}};
  for (std::size_t t : c->near_ties) pick.near_ties.push_back(among[t]);
  return pick;
}

}  // namespace

InterferenceHeadline interference_headline(const std::vector<InterferenceAggregate>& a, const HeadlineSteps& steps) {
  InterferenceHeadline h;
  h.judged = std::any_of(a.begin(), a.end(), [](const InterferenceAggregate& x) { return x.rounds.has_value(); });
  // Each warm step's points' launch counts, in the order the steps are named.
  std::vector<std::string> present;
  std::vector<std::vector<std::size_t>> launches;
  for (const std::string& step : steps.warm) {
    std::vector<std::size_t> counts;
    for (const InterferenceAggregate& x : a)
      if (x.step == step && candidate(x)) counts.push_back(x.launches.size());
    if (counts.empty()) continue;
    present.push_back(step);
    launches.push_back(std::move(counts));
  }
  for (std::size_t i : most_launched_parts(launches)) h.warm_steps.push_back(present[i]);
  std::vector<std::size_t> warm, cold, every_warm, paper;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!candidate(a[i])) continue;
    if (is_in(a[i].step, h.warm_steps)) warm.push_back(i);
    if (is_in(a[i].step, steps.warm)) every_warm.push_back(i);
    if (is_in(a[i].step, steps.cold)) cold.push_back(i);
    if (is_in(a[i].step, steps.paper)) paper.push_back(i);
  }
  std::vector<double> paper_ratios;
  std::vector<LayoutRatio> paper_layouts;
  for (std::size_t i : paper) {
    paper_ratios.push_back(*a[i].ratio_to_ssb.median);
    paper_layouts.push_back({to_string(a[i].key.layout), *a[i].ratio_to_ssb.median});
  }
  if (const auto w = largest_ratio(paper_ratios)) h.paper_largest = paper[*w];
  h.paper_typical = typical_ratio_per_layout(paper_layouts);
  if (!h.judged) {  // files from before the rounds: the worst median ratio, as it was shown then
    std::vector<double> ratios;
    for (std::size_t i : every_warm) ratios.push_back(*a[i].ratio_to_ssb.median);
    if (const auto w = largest_ratio(ratios)) h.worst = every_warm[*w];
    return h;
  }
  h.warm = pick_slowdown(a, warm);
  h.cold = pick_slowdown(a, cold);
  std::vector<std::size_t> both = warm;
  both.insert(both.end(), cold.begin(), cold.end());
  std::vector<JudgedPoint> points;
  for (std::size_t i : both) points.push_back(judged(a[i]));
  if (const auto up = choose_speedup(points)) h.speedup = SpeedupPick{both[up->fastest], up->count};
  return h;
}

namespace {

Json pick_numbers(const std::string& quantity, const InterferenceAggregate& a,
                  const std::optional<HeadlineVerdict>& v) {
  const PooledReading& r = a.ratio_to_ssb;
  return {{"quantity", quantity},
          {"verdict", v ? Json(to_string(*v)) : Json()},
          {"value", json_or_null(r.median)},
          {"lower", r.ci95 ? Json(r.ci95->low) : Json()},
          {"upper", r.ci95 ? Json(r.ci95->high) : Json()},
          {"unit", "ratio to SSB"},
          {"effect", r.effect ? Json(to_string(*r.effect)) : Json()},
          {"interval_over", r.ci95_over ? Json(to_string(*r.ci95_over)) : Json()},
          {"launches", a.launches.size()},
          {"point",
           {{"step", a.step},
            {"size_bytes", a.key.size},
            {"layout", to_string(a.key.layout)},
            {"access", to_string(a.key.access)},
            {"load_kind", to_string(a.key.load)},
            {"load_gpus", a.key.gpus},
            {"load_rate", a.load_rate}}},
          {"send_time_ns", json_or_null(a.send_time_ns.median)},
          {"ssb_send_time_ns", json_or_null(a.ssb_send_time_ns.median)},
          {"traffic_gbs", json_or_null(a.traffic_gbs.median)}};
}

}  // namespace

Json headline_numbers(const InterferenceHeadline& h, const std::vector<InterferenceAggregate>& a) {
  Json out = Json::object();
  out["warm"] = h.warm ? pick_numbers("MPI_Send slowdown under GPU traffic", a[h.warm->point], h.warm->verdict)
                       : Json();
  out["cold"] = h.cold ? pick_numbers("Cold MPI_Send slowdown under GPU traffic", a[h.cold->point], h.cold->verdict)
                       : Json();
  out["speedup"] = h.speedup ? pick_numbers("MPI_Send speed-up under GPU traffic (not expected)", a[h.speedup->fastest],
                                            std::nullopt)
                             : Json();
  if (h.speedup) out["speedup"]["count"] = h.speedup->count;
  out["worst"] = h.worst ? pick_numbers("Worst MPI_Send slowdown under GPU traffic", a[*h.worst], std::nullopt)
                         : Json();
  out["paper_largest"] = h.paper_largest ? pick_numbers("Largest ratio to SSB, the paper's writer", a[*h.paper_largest],
                                                        std::nullopt)
                                         : Json();
  out["paper_typical"] = Json::array();
  for (const LayoutRatio& t : h.paper_typical)
    out["paper_typical"].push_back({{"layout", t.layout}, {"ratio_to_ssb", t.ratio}});
  return out;
}

}  // namespace hetprobe
