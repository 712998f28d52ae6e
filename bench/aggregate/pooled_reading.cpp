#include "bench/aggregate/pooled_reading.hpp"

#include <algorithm>

namespace hetprobe {

namespace {

// The launches' values, the median of those that have one, their min and max.
PooledReading spread_of(const std::vector<LaunchReading>& launches) {
  PooledReading out;
  std::vector<double> have;
  for (const LaunchReading& l : launches) {
    out.per_launch.push_back(l.value);
    if (l.value) have.push_back(*l.value);
  }
  if (have.empty()) return out;
  out.median = summarize(have).median;
  out.min = *std::min_element(have.begin(), have.end());
  out.max = *std::max_element(have.begin(), have.end());
  return out;
}

std::vector<double> values_of(const PooledReading& r) {
  std::vector<double> v;
  for (const auto& x : r.per_launch)
    if (x) v.push_back(*x);
  return v;
}

bool all_positive(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}

void set_interval(PooledReading& r, const std::optional<Interval>& ci, IntervalOver over) {
  r.ci95 = ci;
  r.ci95_over = ci ? std::optional(over) : std::nullopt;
}

}  // namespace

PooledReading pool_reading(const std::vector<LaunchReading>& launches) {
  PooledReading out = spread_of(launches);
  const std::vector<double> v = values_of(out);
  if (launches.size() == 1 && out.median) {
    set_interval(out, launches.front().ci95, launches.front().ci95_over);
  } else if (v.size() >= 3 && all_positive(v)) {
    set_interval(out, pool_launch_ratios(v).ci95, IntervalOver::launches);
  }
  return out;
}

std::vector<PooledReading> pool_ratios(const std::vector<std::vector<LaunchReading>>& points) {
  std::vector<PooledReading> out;
  std::vector<std::vector<double>> pooled;  // the points of several launches with ratios, for the pool
  std::vector<std::size_t> pooled_at;       // their places in `out`
  for (const std::vector<LaunchReading>& launches : points) {
    out.push_back(spread_of(launches));
    PooledReading& r = out.back();
    if (launches.size() == 1) {
      if (r.median) set_interval(r, launches.front().ci95, launches.front().ci95_over);
    } else if (std::vector<double> v = values_of(r); !v.empty() && all_positive(v)) {
      pooled.push_back(std::move(v));
      pooled_at.push_back(out.size() - 1);
    }
  }
  const std::vector<PooledRatio> p = pooled.empty() ? std::vector<PooledRatio>{} : pool_launch_points(pooled);
  for (std::size_t i = 0; i < p.size(); ++i) {
    PooledReading& r = out[pooled_at[i]];
    r.median = p[i].median;
    set_interval(r, p[i].ci95, IntervalOver::launches);
  }
  for (PooledReading& r : out)
    if (r.ci95) r.effect = classify_ratio(*r.ci95);
  return out;
}

namespace {

std::optional<double> optional_number(const RecordRef& r, const std::string& path) {
  const Json v = number_or_null(r, path);
  return v.is_number() ? std::optional(v.get<double>()) : std::nullopt;
}

}  // namespace

PooledReading pooled_reading_at(const RecordRef& r, const std::string& path) {
  PooledReading out;
  const Json* v = find_field(r, path);
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_object()) bad_field(r, path, "a pooled reading (an object) or null");
  out.median = optional_number(r, path + ".median");
  out.min = optional_number(r, path + ".min");
  out.max = optional_number(r, path + ".max");
  const Json& per_launch = field_json(r, path + ".per_launch");
  if (!per_launch.is_array()) bad_field(r, path + ".per_launch", "a list of numbers or nulls");
  for (const Json& x : per_launch) {
    if (!x.is_null() && !x.is_number()) bad_field(r, path + ".per_launch", "a list of numbers or nulls");
    out.per_launch.push_back(x.is_number() ? std::optional(x.get<double>()) : std::nullopt);
  }
  if (const Json* ci = find_field(r, path + ".ci95"); ci != nullptr && !ci->is_null()) {
    const std::vector<double> ends = number_list(r, path + ".ci95", "[low, high]");
    if (ends.size() != 2) bad_field(r, path + ".ci95", "[low, high]");
    out.ci95 = Interval{ends[0], ends[1]};
    try {
      out.ci95_over = kIntervalOverNames.parse(field<std::string>(r, path + ".ci95_over"));
    } catch (const Error&) {
      bad_field(r, path + ".ci95_over", "launches, rounds or samples");
    }
  }
  if (const Json* e = find_field(r, path + ".effect"); e != nullptr && !e->is_null()) try {
      out.effect = kEffectNames.parse(field<std::string>(r, path + ".effect"));
    } catch (const Error&) {
      bad_field(r, path + ".effect", "none, slowdown or speedup");
    }
  return out;
}

Json to_json(const PooledReading& r, bool ratio) {
  Json per_launch = Json::array();
  for (const auto& x : r.per_launch) per_launch.push_back(json_or_null(x));
  Json out{{"median", json_or_null(r.median)},
           {"ci95", r.ci95 ? Json{r.ci95->low, r.ci95->high} : Json()},
           {"ci95_over", r.ci95_over ? Json(to_string(*r.ci95_over)) : Json()}};
  if (ratio) out["effect"] = r.effect ? Json(to_string(*r.effect)) : Json();
  out["min"] = json_or_null(r.min);
  out["max"] = json_or_null(r.max);
  out["per_launch"] = std::move(per_launch);
  return out;
}

}  // namespace hetprobe
