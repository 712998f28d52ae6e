#include "bench/core/launches.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "base/errors.hpp"
#include "bench/core/record_field.hpp"
#include "bench/core/results_report.hpp"

namespace hetprobe {

namespace {

// `v` with every object's keys in sorted order (through std::map objects):
// equal, and dumped alike, whatever order a file wrote its keys in.
Json sorted_json(const Json& v) { return Json::parse(nlohmann::json::parse(v.dump()).dump()); }

}  // namespace

Json launch_identity(const Json& header) {
  const auto part = [&](const char* key) { return header.is_object() ? header.value(key, Json()) : Json(); };
  Json config = part("config");
  if (config.is_object()) {
    config.erase("seed");
    config.erase("host_stream");
  }
  Json bind = Json::array();
  const Json ranks = part("ranks");
  if (ranks.is_array())
    for (const Json& rank : ranks) {
      if (!rank.is_object()) continue;
      const Json placement = rank.value("placement", Json());
      bind.push_back(placement.is_object() ? placement.value("bind", Json()) : Json());
    }
  const Json device = part("device");
  // Keys in sorted order, and every object below sorted too.
  Json id = Json::object();
  id["backend"] = sorted_json(part("backend"));
  id["bind"] = sorted_json(bind);
  id["config"] = sorted_json(config);
  id["device"] = device.is_object() ? sorted_json(device.value("name", Json())) : Json();
  id["host"] = sorted_json(part("host"));
  return id;
}

std::optional<LaunchDifference> launch_difference(const Json& a, const Json& b) {
  const Json x = launch_identity(a), y = launch_identity(b);
  for (auto it = x.begin(); it != x.end(); ++it) {
    const Json& mine = *it;
    const Json& theirs = y.at(it.key());
    if (mine == theirs) continue;
    if (it.key() != "config" || !mine.is_object() || !theirs.is_object())
      return LaunchDifference{it.key(), mine, theirs};
    std::set<std::string> keys;
    for (auto k = mine.begin(); k != mine.end(); ++k) keys.insert(k.key());
    for (auto k = theirs.begin(); k != theirs.end(); ++k) keys.insert(k.key());
    for (const std::string& k : keys)
      if (mine.value(k, Json()) != theirs.value(k, Json()))
        return LaunchDifference{"config." + k, mine.value(k, Json()), theirs.value(k, Json())};
  }
  return std::nullopt;
}

const Json& launch_header(const ResultsFile& file, const std::string& probe, const Json* first,
                          const std::string& first_name) {
  if (file.records.empty() || file.probe() != probe)
    throw usage_error("--pool: " + file.path.string() + " is not " + (probe == "interference" ? "an " : "a ") + probe +
                      " results file");
  const Json& h = file.records.front();
  // A header's config, an object, or a usage error naming FILE:LINE (never the JSON library's own).
  if (const RecordRef r{h, file.place(0)}; !field_json(r, "config").is_object()) bad_field(r, "config", "an object");
  if (first == nullptr) return h;
  if (h.value("host", Json()) != first->value("host", Json()))
    throw usage_error("--pool: " + file.path.string() + " was measured on " + h.value("host", Json()).dump() + ", " +
                      first_name + " on " + first->value("host", Json()).dump() + ": launches pool on one node only");
  if (const auto d = launch_difference(h, *first)) {
    const std::string name = d->part.rfind("config.", 0) == 0 ? d->part.substr(7) : d->part;  // a setting by its name
    throw usage_error("--pool: " + file.path.string() + " has " + name + " = " + d->in_a.dump() + ", " + first_name +
                      " " + d->in_b.dump() + ": not launches of one command");
  }
  return h;
}

std::string ratios_text(const std::vector<double>& ratios) {
  std::string text;
  char one[16];
  for (double r : ratios) {
    std::snprintf(one, sizeof one, "%s%.3f", text.empty() ? "" : " ", r);
    text += one;
  }
  return text;
}

void add_launches_about(Report& report, const std::vector<ResultsFile>& files, const Json& first,
                        const std::string& probe) {
  report.about.push_back(device_line({first, files.front().path.string()}, probe) + ": " +
                         std::to_string(files.size()) + (files.size() == 1 ? " launch" : " launches") +
                         " pooled (a launch is the unit of replication)");
  std::string names;
  for (const ResultsFile& f : files) names += (names.empty() ? "" : ", ") + f.path.string();
  report.about.push_back("launches: " + names);
}

std::vector<Column> pooled_columns(const std::string& value, const std::string& per_launch, int effect_width) {
  using Align = Column::Align;
  using Shown = Column::Shown;
  return {{"launches", 8, Align::right},
          {per_launch, 20, Align::left},
          {value, std::max(7, static_cast<int>(value.size())), Align::right, 3},
          {"ci95", 11, Align::right, -1, Shown::text},
          {value + "_ci95_low", 0, Align::right, -1, Shown::data},
          {value + "_ci95_high", 0, Align::right, -1, Shown::data},
          {"effect", effect_width, Align::left},
          {"min", 6, Align::right, 3},
          {"max", 6, Align::right, 3}};
}

std::vector<Json> pooled_cells(const PooledReading& pooled) {
  std::vector<double> values;
  for (const auto& v : pooled.per_launch)
    if (v) values.push_back(*v);
  const std::optional<Interval>& ci = pooled.ci95;
  return {static_cast<int>(pooled.per_launch.size()),
          ratios_text(values),
          json_or_null(pooled.median),
          interval_text(ci ? Json{ci->low, ci->high} : Json()),
          ci ? Json(ci->low) : Json(),
          ci ? Json(ci->high) : Json(),
          pooled.effect ? Json(to_string(*pooled.effect)) : Json(),
          json_or_null(pooled.min),
          json_or_null(pooled.max)};
}

std::vector<Json> pooled_cells(const std::vector<double>& values, const PooledRatio& pooled,
                               Effect (*classify)(const Interval&)) {
  PooledReading reading;
  for (double v : values) reading.per_launch.emplace_back(v);
  reading.median = pooled.median;
  reading.min = pooled.min;
  reading.max = pooled.max;
  reading.ci95 = pooled.ci95;
  if (pooled.ci95) reading.effect = classify(*pooled.ci95);
  return pooled_cells(reading);
}

void note_few_launches(Table& table, std::size_t launches) {
  if (launches < 3) table.notes.push_back("fewer than 3 launches: no interval from the spread between launches");
}

}  // namespace hetprobe
