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

// The judgement's types as Python classes: an Effect (str() is its name, as
// the tables write it), an Interval that unpacks as (low, high), and a
// PooledRatio with its effect judged once here.
void bind_types(py::module_& m) {
  py::enum_<Effect>(m, "Effect", "What a ratio's 95% interval claims against the effect margin (base/effect.hpp)")
      .value("none", Effect::none)
      .value("slowdown", Effect::slowdown)
      .value("speedup", Effect::speedup)
      .def("__str__", [](Effect e) { return std::string(to_string(e)); });
  py::class_<Interval>(m, "Interval", "A 95% confidence interval: low, high (unpacks as a pair)")
      .def_readonly("low", &Interval::low)
      .def_readonly("high", &Interval::high)
      .def("__iter__", [](const Interval& i) { return py::iter(py::make_tuple(i.low, i.high)); })
      .def("__repr__", [](const Interval& i) {
        return "Interval(" + py::repr(py::float_(i.low)).cast<std::string>() + ", " +
               py::repr(py::float_(i.high)).cast<std::string>() + ")";
      });
  py::class_<PooledRatio>(m, "PooledRatio",
                          "A ratio pooled over launches: median, ci95 (an Interval, None under 3 launches), effect "
                          "(an Effect, None without an interval), min and max of the launches, launches, "
                          "degrees_of_freedom of the interval's t")
      .def_readonly("median", &PooledRatio::median)
      .def_readonly("ci95", &PooledRatio::ci95)
      .def_property_readonly("effect",
                             [](const PooledRatio& p) {
                               return p.ci95 ? std::optional<Effect>(classify_ratio(*p.ci95)) : std::nullopt;
                             })
      .def_readonly("min", &PooledRatio::min)
      .def_readonly("max", &PooledRatio::max)
      .def_readonly("launches", &PooledRatio::launches)
      .def_readonly("degrees_of_freedom", &PooledRatio::degrees_of_freedom)
      .def("__repr__", [](const PooledRatio& p) {
        return "PooledRatio(median=" + py::repr(py::float_(p.median)).cast<std::string>() +
               ", launches=" + std::to_string(p.launches) + ")";
      });
}

}  // namespace

void bind_judgement(py::module_& m) {
  m.attr("effect_margin") = kEffectMargin;
  bind_types(m);
  m.def(
      "classify_ratio", [](double low, double high) { return classify_ratio({low, high}); }, py::arg("low"),
      py::arg("high"),
      "The Effect a ratio's 95% interval [low, high] claims: slowdown, speedup or none (margin effect_margin); "
      "str() of it is its name");
  m.def("pool_launch_ratios", &pool_launch_ratios, py::arg("ratios"),
        "A ratio pooled over launches, its interval from its own spread: a PooledRatio (ci95 None under 3 "
        "launches); ValueError for no ratio or one not above 0");
  m.def("pool_launch_points", &pool_launch_points, py::arg("points"),
        "Points measured side by side over the same launches (one size of one command), each a list of its "
        "launches' ratios: a PooledRatio for each, the launches' variance pooled over the points (base/effect.hpp)");
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
