#include "bench/interference/interference_aggregate.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "base/errors.hpp"
#include "bench/core/record_field.hpp"
#include "bench/interference/interference_resume.hpp"
#include "bench/interference/interference_table.hpp"

namespace hetprobe {

namespace {

// What makes two records one point of one series.
using AggregateKey = std::tuple<std::size_t, PointKey, std::string, std::string, std::string>;

// A field's value, null where it is absent.
Json json_at(const RecordRef& r, std::string_view path) {
  const Json* v = find_field(r, path);
  return v != nullptr ? *v : Json();
}

std::optional<double> number_at(const RecordRef& r, std::string_view path) {
  const Json v = number_or_null(r, path);
  return v.is_number() ? std::optional(v.get<double>()) : std::nullopt;
}

// A launch's value with no interval of its own.
LaunchReading value_only(std::optional<double> value) { return {value, std::nullopt, IntervalOver::rounds}; }

// An interval field ([low, high]) of a record, where it has one.
std::optional<Interval> interval_at(const RecordRef& r, std::string_view path) {
  const Json* v = find_field(r, path);
  if (v == nullptr || v->is_null()) return std::nullopt;
  const std::vector<double> ends = number_list(r, path, "[low, high]");
  if (ends.size() != 2) bad_field(r, path, "[low, high]");
  return Interval{ends[0], ends[1]};
}

// A summary's median, with the interval of its round medians (rounds) or
// else of its samples: what one launch says of an absolute time alone.
LaunchReading time_reading(const RecordRef& r, const std::string& summary) {
  const Json* s = find_field(r, summary);
  if (s == nullptr || !s->is_object()) return {};
  LaunchReading out = value_only(number_at(r, summary + ".median"));
  for (const auto& [list, over] :
       {std::pair{".round_medians", IntervalOver::rounds}, {".samples", IntervalOver::samples}})
    if (const Json* v = find_field(r, summary + list); v != nullptr && v->is_array()) {
      out.ci95 = median_ci95(number_list(r, summary + list, "a list of numbers (ns)"));
      out.ci95_over = over;
      break;
    }
  return out;
}

AggregateKey key_of(std::size_t series, const RecordRef& r) {
  return {series, point_key(r), json_at(r, "send_mode").dump(), json_at(r, "writer_side").dump(),
          field_or<std::string>(r, "gap.label", "0")};
}

// The key of the SSB point that a point's ratio is to: the same size, access and sends.
AggregateKey ssb_key(AggregateKey key) {
  PointKey& k = std::get<1>(key);
  k = PointKey{k.size, Layout::SSB, k.access, LoadKind::none, 0, std::nullopt};
  return key;
}

// A point's ratio to SSB in one launch: measured in rounds, the paired ratio
// and its interval; in files from before the rounds, its median ÷ the SSB
// median of its own launch, and no interval.
LaunchReading ratio_reading(const RecordRef& r, const std::optional<double>& ssb_median) {
  if (const auto paired = number_at(r, "ratio_to_ssb_median"))
    return {paired, interval_at(r, "ratio_to_ssb_ci95"), IntervalOver::rounds};
  const auto median = number_at(r, "send_time_ns.median");
  if (median && ssb_median && *ssb_median > 0) return value_only(*median / *ssb_median);
  return value_only(std::nullopt);
}

struct PointLaunch {
  std::size_t launch;
  RecordAt at;
};

}  // namespace

bool holds_aggregates(const ResultsFile& file) {
  return std::any_of(file.records.begin(), file.records.end(),
                     [](const Json& r) { return r.is_object() && r.value("record", Json()) == "aggregate"; });
}

InterferenceAggregate aggregate_of_record(const RecordRef& r) {
  InterferenceAggregate a;
  a.step = field<std::string>(r, "step");
  a.series = field<std::size_t>(r, "series");
  a.host = json_at(r, "host");
  a.backend = json_at(r, "backend");
  a.device = json_at(r, "device");
  a.key = point_key(r);
  a.load_rate = json_at(r, "load_rate");
  a.send_mode = json_at(r, "send_mode");
  a.writer_side = json_at(r, "writer_side");
  a.gap_label = field_or<std::string>(r, "gap.label", "0");
  a.gap_kind = field_or<std::string>(r, "gap.kind", "none");
  a.gap_bytes = number_at(r, "gap.bytes");
  for (double n : number_list(r, "launch_numbers", "a list of launch numbers"))
    a.launches.push_back(static_cast<std::size_t>(n));
  const Json& files = field_json(r, "files");
  if (!files.is_array()) bad_field(r, "files", "a list of file names");
  for (const Json& name : files) a.launch_files.push_back(name.is_string() ? name.get<std::string>() : "");
  if (a.launch_files.size() != a.launches.size()) bad_field(r, "files", "a file name per launch_numbers' launch");
  if (const Json rounds = json_at(r, "rounds"); rounds.is_number_integer()) a.rounds = rounds.get<std::int64_t>();
  if (const Json reps = json_at(r, "reps"); reps.is_number_integer()) a.reps = reps.get<std::int64_t>();
  a.n = field<std::int64_t>(r, "n");
  a.status = field<std::string>(r, "status");
  a.ratio_to_ssb = pooled_reading_at(r, "ratio_to_ssb");
  a.cold_over_warm = pooled_reading_at(r, "cold_over_warm");
  a.send_time_ns = pooled_reading_at(r, "send_time_ns");
  a.ssb_send_time_ns = pooled_reading_at(r, "ssb_send_time_ns");
  a.warm_send_time_ns = pooled_reading_at(r, "warm_send_time_ns");
  a.traffic_gbs = pooled_reading_at(r, "traffic_during_send_gbs");
  return a;
}

std::vector<InterferenceAggregate> aggregate_interference(const std::vector<ResultsFile>& files) {
  if (const auto pooled = std::find_if(files.begin(), files.end(), holds_aggregates); pooled != files.end()) {
    std::vector<InterferenceAggregate> out;  // pooled already: read as written
    for (const ResultsFile& f : files) {
      if (!holds_aggregates(f))
        throw usage_error(f.path.string() + " holds launches and " + pooled->path.string() +
                          " pooled points (aggregate records of show --pool --records): read a pooled file alone, "
                          "or the launches it names");
      for (std::size_t i = 0; i < f.records.size(); ++i)
        if (const RecordRef r{f.records[i], f.place(i)}; field_or<std::string>(r, "record", "") == "aggregate")
          out.push_back(aggregate_of_record(r));
    }
    return out;
  }
  std::vector<AggregateKey> order;
  std::map<AggregateKey, std::vector<PointLaunch>> found;
  std::map<std::size_t, const Launch*> first_of;  // series -> its first launch
  std::map<RecordAt, double> ssb_of;              // a point's SSB median in its own launch, where it has one
  const std::vector<Launch> launches = run_launches(files, "interference");
  for (const Launch& l : launches) {
    first_of.emplace(l.series, &l);
    const ResultsFile& f = files[l.file];
    std::map<AggregateKey, double> ssb;  // this launch's SSB medians, by the key of SSB at a point's size
    for (std::size_t i = l.begin; i < l.end; ++i) {
      const RecordRef r{f.records[i], f.place(i)};
      if (field_or<std::string>(r, "record", "") != "point") continue;
      const AggregateKey key = key_of(l.series, r);
      if (const auto median = number_at(r, "send_time_ns.median"); median && std::get<1>(key).layout == Layout::SSB)
        ssb.emplace(key, *median);
      auto [it, fresh] = found.try_emplace(key);
      if (fresh) order.push_back(key);
      if (!it->second.empty() && it->second.back().launch == l.number) continue;  // twice in one launch: once
      it->second.push_back({l.number, {l.file, i}});
    }
    for (const auto& [key, at] : found)
      if (!at.empty() && at.back().launch == l.number && at.back().at.file == l.file)
        if (const auto it = ssb.find(ssb_key(key)); it != ssb.end()) ssb_of[at.back().at] = it->second;
  }
  std::vector<InterferenceAggregate> out;
  // The ratios of one series and size are pooled together (pool_ratios).
  std::map<std::pair<std::size_t, std::uint64_t>, std::vector<std::size_t>> by_size;
  std::vector<std::vector<LaunchReading>> ratios, colds;
  for (const AggregateKey& key : order) {
    const std::vector<PointLaunch>& at = found.at(key);
    const Launch& first = *first_of.at(std::get<0>(key));
    const Json& header = files[first.file].records[first.begin];
    InterferenceAggregate a;
    a.step = first.step;
    a.series = first.series;
    a.host = header.value("host", Json());
    a.backend = header.value("backend", Json());
    const Json device = header.value("device", Json());
    a.device = device.is_object() ? device.value("name", Json()) : Json();
    a.key = std::get<1>(key);
    std::vector<LaunchReading> ratio, cold, send, ssb, warm, traffic;
    for (const PointLaunch& p : at) {
      const ResultsFile& f = files[p.at.file];
      const RecordRef r{f.records[p.at.index], f.place(p.at.index)};
      if (a.records.empty()) {
        a.load_rate = a.key.rate ? Json(a.key.rate->label) : Json();
        a.send_mode = json_at(r, "send_mode");
        a.writer_side = json_at(r, "writer_side");
        if (const Json* g = find_field(r, "gap"); g != nullptr && g->is_object()) {
          a.gap_label = std::get<4>(key);
          a.gap_kind = field_or<std::string>(r, "gap.kind", "none");
          a.gap_bytes = number_at(r, "gap.bytes");
        }
        const Json rounds = json_at(r, "rounds"), reps = json_at(r, "reps");
        if (rounds.is_number_integer()) a.rounds = rounds.get<std::int64_t>();
        if (reps.is_number_integer()) a.reps = reps.get<std::int64_t>();
      }
      a.launches.push_back(p.launch);
      a.records.push_back(p.at);
      a.n += field_or<std::int64_t>(r, "n", 0);
      if (const std::string s = field_or<std::string>(r, "status", "ok"); s != "ok" && a.status == "ok") a.status = s;
      const auto own_ssb = ssb_of.find(p.at);
      const std::optional<double> launch_ssb = own_ssb != ssb_of.end() ? std::optional(own_ssb->second) : std::nullopt;
      ratio.push_back(ratio_reading(r, launch_ssb));
      cold.push_back({number_at(r, "cold_over_warm_median"), interval_at(r, "cold_over_warm_ci95"),
                      IntervalOver::rounds});
      send.push_back(time_reading(r, "send_time_ns"));
      warm.push_back(time_reading(r, "warm_send_time_ns"));
      const auto paired_ssb = number_at(r, "ssb_send_time_ns_median");
      ssb.push_back(a.key.layout == Layout::SSB ? send.back() : value_only(paired_ssb ? paired_ssb : launch_ssb));
      const Json t = traffic_gbs(r);
      traffic.push_back(value_only(t.is_number() ? std::optional(t.get<double>()) : std::nullopt));
    }
    a.send_time_ns = pool_reading(send);
    a.ssb_send_time_ns = pool_reading(ssb);
    a.warm_send_time_ns = pool_reading(warm);
    a.traffic_gbs = pool_reading(traffic);
    by_size[{a.series, a.key.size}].push_back(out.size());
    ratios.push_back(std::move(ratio));
    colds.push_back(std::move(cold));
    out.push_back(std::move(a));
  }
  for (const auto& [size, members] : by_size) {
    std::vector<std::vector<LaunchReading>> r, c;
    for (std::size_t i : members) {
      r.push_back(out[i].key.layout == Layout::SSB ? std::vector<LaunchReading>(ratios[i].size()) : ratios[i]);
      c.push_back(colds[i]);
    }
    const std::vector<PooledReading> pr = pool_ratios(r), pc = pool_ratios(c);
    for (std::size_t j = 0; j < members.size(); ++j) {
      out[members[j]].ratio_to_ssb = pr[j];
      out[members[j]].cold_over_warm = pc[j];
    }
  }
  return out;
}

Json pooled_header(const std::vector<ResultsFile>& launches) {
  Json header = launches.front().records.front();
  Json names = Json::array();
  for (const ResultsFile& f : launches) names.push_back(f.path.string());
  header["pooled_launches"] = std::move(names);
  return header;
}

std::vector<std::string> pooled_launch_names(const Json& header) {
  std::vector<std::string> out;
  const auto names = header.is_object() ? header.find("pooled_launches") : Json::const_iterator();
  if (header.is_object() && names != header.end() && names->is_array())
    for (const Json& n : *names)
      if (n.is_string()) out.push_back(n.get<std::string>());
  return out;
}

Json aggregate_record(const InterferenceAggregate& a, const std::vector<ResultsFile>& files) {
  Json launches = Json::array(), names = Json::array();
  for (std::size_t i = 0; i < a.launches.size(); ++i) {
    launches.push_back(a.launches[i]);
    names.push_back(i < a.records.size() ? files[a.records[i].file].path.string() : a.launch_files.at(i));
  }
  return Json{{"record", "aggregate"},
              {"probe", "interference"},
              {"aggregate_of", "point"},
              {"step", a.step},
              {"series", a.series},
              {"host", a.host},
              {"backend", a.backend},
              {"device", a.device},
              {"size_bytes", a.key.size},
              {"layout", to_string(a.key.layout)},
              {"access", to_string(a.key.access)},
              {"load_kind", to_string(a.key.load)},
              {"load_gpus", a.key.gpus},
              {"load_rate", a.load_rate},
              {"send_mode", a.send_mode},
              {"writer_side", a.writer_side},
              {"gap", {{"label", a.gap_label}, {"kind", a.gap_kind}, {"bytes", json_or_null(a.gap_bytes)}}},
              {"launches", a.launches.size()},
              {"launch_numbers", launches},
              {"files", names},
              {"rounds", json_or_null(a.rounds)},
              {"reps", json_or_null(a.reps)},
              {"n", a.n},
              {"status", a.status},
              {"ratio_to_ssb", a.key.layout == Layout::SSB ? Json() : to_json(a.ratio_to_ssb, true)},
              {"cold_over_warm", to_json(a.cold_over_warm, true)},
              {"send_time_ns", to_json(a.send_time_ns, false)},
              {"ssb_send_time_ns", to_json(a.ssb_send_time_ns, false)},
              {"warm_send_time_ns", to_json(a.warm_send_time_ns, false)},
              {"traffic_during_send_gbs", to_json(a.traffic_gbs, false)}};
}

}  // namespace hetprobe
