// hetprobe._core's judgement of ratios (base/effect.hpp) and the headline's
// choices among judged points (base/headline_choice.hpp), computed once in
// C++ for the tables, the headline and the plots.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/effect.hpp"
#include "base/headline_choice.hpp"
#include "bind_common.hpp"

namespace py = pybind11;

namespace hetprobe {

namespace {

// A headline point as Python gives it: (ratio, (low, high) or None, effect name or None).
using PyJudgedPoint = std::tuple<double, std::optional<std::pair<double, double>>, std::optional<std::string>>;

std::vector<JudgedPoint> judged_points(const std::vector<PyJudgedPoint>& points) {
  std::vector<JudgedPoint> out;
  for (const auto& [ratio, ci95, effect] : points) {
    JudgedPoint p{ratio, std::nullopt, std::nullopt};
    if (ci95) p.ci95 = Interval{ci95->first, ci95->second};
    if (effect) p.effect = kEffectNames.parse(*effect);
    out.push_back(p);
  }
  return out;
}

py::dict pooled_dict(const PooledRatio& p) {
  py::dict d;
  d["median"] = p.median;
  d["ci95"] = p.ci95 ? py::object(py::make_tuple(p.ci95->low, p.ci95->high)) : py::object(py::none());
  d["effect"] = p.ci95 ? py::object(py::str(to_string(classify_ratio(*p.ci95)))) : py::object(py::none());
  d["min"] = p.min;
  d["max"] = p.max;
  d["launches"] = p.launches;
  d["degrees_of_freedom"] = p.degrees_of_freedom;
  return d;
}

}  // namespace

void bind_judgement(py::module_& m) {
  m.attr("effect_margin") = kEffectMargin;
  m.def(
      "classify_ratio", [](double low, double high) { return std::string(to_string(classify_ratio({low, high}))); },
      py::arg("low"), py::arg("high"),
      "'slowdown', 'speedup' or 'none': what a ratio's 95% interval [low, high] claims (margin effect_margin)");
  m.def(
      "pool_launch_ratios", [](const std::vector<double>& ratios) { return pooled_dict(pool_launch_ratios(ratios)); },
      py::arg("ratios"),
      "A ratio pooled over launches, its interval from its own spread: {median, ci95 (low, high) or None under 3 "
      "launches, effect, min, max, launches, degrees_of_freedom}; ValueError for no ratio or one not above 0");
  m.def(
      "pool_launch_points",
      [](const std::vector<std::vector<double>>& points) {
        py::list out;
        for (const PooledRatio& p : pool_launch_points(points)) out.append(pooled_dict(p));
        return out;
      },
      py::arg("points"),
      "Points measured side by side over the same launches (one size of one command), each a list of its "
      "launches' ratios: pool_launch_ratios' dict for each, the launches' variance pooled over the points "
      "(base/effect.hpp)");
  m.def(
      "choose_slowdown",
      [](const std::vector<PyJudgedPoint>& points) -> py::object {
        const std::optional<SlowdownChoice> choice = choose_slowdown(judged_points(points));
        if (!choice) return py::none();
        py::dict d;
        d["chosen"] = choice->chosen;
        d["verdict"] = to_string(choice->verdict);
        d["near_ties"] = choice->near_ties;
        return d;
      },
      py::arg("points"),
      "The point the interference headline names, of points (ratio, (low, high) or None, effect or None): "
      "{chosen: index, verdict: 'claimed', 'within_noise' or 'no_interval', near_ties: the indices of the other "
      "claimed slowdowns whose interval reaches the chosen one's, largest first}; None for no points "
      "(base/headline_choice.hpp)");
  m.def(
      "largest_ratio", [](const std::vector<double>& ratios) { return largest_ratio(ratios); }, py::arg("ratios"),
      "The index of the largest ratio (the first of equals), None for none: the worst median slowdown where there "
      "are no intervals (base/headline_choice.hpp)");
  m.def(
      "fastest_time", [](const std::vector<double>& medians) { return fastest_time(medians); }, py::arg("medians_ns"),
      "The index of the smallest time (the first of equals), None for none: the notify headline's fastest flag "
      "order (base/headline_choice.hpp)");
  m.def(
      "typical_ratio_per_layout",
      [](const std::vector<std::pair<std::string, double>>& points) {
        std::vector<LayoutRatio> in;
        for (const auto& [layout, ratio] : points) in.push_back({layout, ratio});
        std::vector<std::pair<std::string, double>> out;
        for (const LayoutRatio& t : typical_ratio_per_layout(in)) out.emplace_back(t.layout, t.ratio);
        return out;
      },
      py::arg("points"),
      "[(layout, typical ratio)] of points (layout, ratio to SSB): each layout's median ratio over sizes and "
      "access, in name order (base/headline_choice.hpp)");
  m.def("triad_share_percent", &triad_share_percent, py::arg("traffic_gbs"), py::arg("triad_gbs"),
        "A point's GPU traffic during the sends as a percentage of the best STREAM triad; None without a finite "
        "traffic or a triad above 0 (base/headline_choice.hpp)");
}

}  // namespace hetprobe
