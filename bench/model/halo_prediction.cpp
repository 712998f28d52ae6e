#include "bench/model/halo_prediction.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "base/errors.hpp"
#include "bench/core/record_field.hpp"
#include "bench/core/results_report.hpp"

namespace hetprobe {

namespace {

using Align = Column::Align;
using Shown = Column::Shown;

struct Message {
  std::uint64_t tag = 0, bytes = 0;
  int peer = 0;
  std::string kind;
};

std::vector<Message> messages(const RecordRef& r, const char* which) {
  std::vector<Message> out;
  const Json& list = field_json(r, which);
  if (!list.is_array()) bad_field(r, which, "an array of messages");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = std::string(which) + "[" + std::to_string(i) + "]";
    const RecordRef m{list[i], r.place};
    out.push_back({field<std::uint64_t>(m, "tag"), field<std::uint64_t>(m, "bytes"), field<int>(m, "peer"),
                   field_or<std::string>(m, "kind", "")});
  }
  return out;
}

std::vector<double> times(const RecordRef& it, const char* name, std::size_t n) {
  const Json& v = field_json(it, name);
  if (!v.is_array() || v.size() != n) bad_field(it, name, std::to_string(n) + " times");
  std::vector<double> out;
  for (const Json& x : v) out.push_back(x.is_number() ? x.get<double>() : std::nan(""));
  return out;
}

// One rank's record of a setup, its messages and its kept iterations.
struct RankRun {
  RecordRef record;
  std::vector<Message> sends, recvs;
};

double median_of(std::vector<double> v) { return v.empty() ? std::nan("") : summarize(v).median; }

// One setup on two ranks: the prediction, iteration by iteration.
HaloPrediction predict(const NodeModel& model, const RankRun (&ranks)[2]) {
  const RecordRef& r0 = ranks[0].record;
  HaloPrediction p{field<std::string>(r0, "layout"),
                   field<std::string>(r0, "setup"),
                   field<std::string>(r0, "variant"),
                   field_or<int>(r0, "cube", 0),
                   {},
                   {},
                   {},
                   {},
                   0,
                   {}};
  const Json& its0 = field_json(r0, "timeline.iterations");
  const Json& its1 = field_json(ranks[1].record, "timeline.iterations");
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> per_kind;  // measured, predicted
  std::map<std::string, std::uint64_t> kind_bytes;
  for (std::size_t k = 0; k < its0.size(); ++k) {
    const RecordRef it[2] = {{its0[k], r0.place}, {its1[k], ranks[1].record.place}};
    struct Event {
      double send, recv;
      const Message* m;
      int receiver;
    };
    double last_send[2] = {0, 0};  // each rank's: it tests for receives only after its last send is posted
    std::vector<Event> events;
    double traffic_bytes = 0;
    std::vector<std::pair<double, double>> intervals;  // device work: [start, end) and its bytes
    std::vector<double> bytes_of;
    for (int r = 0; r < 2; ++r) {
      const RankRun& me = ranks[r];
      const RankRun& peer = ranks[1 - r];
      const auto send = times(it[r], "send_ns", me.sends.size());
      const auto recv = times(it[1 - r], "recv_ns", peer.recvs.size());
      for (std::size_t i = 0; i < me.sends.size(); ++i) {
        const auto j = std::find_if(peer.recvs.begin(), peer.recvs.end(),
                                    [&](const Message& m) { return m.peer == r && m.tag == me.sends[i].tag; });
        if (j == peer.recvs.end())
          throw usage_error(std::string(r0.place) + ": rank " + std::to_string(r) + "'s message " +
                            std::to_string(me.sends[i].tag) + " has no receive on rank " + std::to_string(1 - r) +
                            ": a halo layout the model cannot place");
        events.push_back({send[i], recv[static_cast<std::size_t>(j - peer.recvs.begin())], &me.sends[i], 1 - r});
        last_send[r] = i == 0 ? send[i] : std::max(last_send[r], send[i]);
      }
      const auto ps = times(it[r], "pack_start_ns", me.sends.size()), pe = times(it[r], "pack_end_ns", me.sends.size());
      const auto us = times(it[r], "unpack_start_ns", me.recvs.size()),
                 ue = times(it[r], "unpack_end_ns", me.recvs.size());
      for (std::size_t i = 0; i < me.sends.size(); ++i)
        intervals.push_back({ps[i], pe[i]}), bytes_of.push_back(static_cast<double>(me.sends[i].bytes));
      for (std::size_t i = 0; i < me.recvs.size(); ++i)
        intervals.push_back({us[i], ue[i]}), bytes_of.push_back(static_cast<double>(me.recvs[i].bytes));
    }
    if (events.empty()) continue;  // a layout without messages has no communication to predict
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.send < b.send; });
    const double first = events.front().send;
    double last = first;
    for (const Event& e : events) last = std::max(last, e.recv);
    // The GPU traffic of this iteration's communication window: each stage's bytes in proportion to its overlap.
    for (std::size_t i = 0; i < intervals.size(); ++i) {
      const auto [a, b] = intervals[i];
      if (!(b > a)) continue;
      const double overlap = std::max(0.0, std::min(b, last) - std::max(a, first));
      traffic_bytes += bytes_of[i] * overlap / (b - a);
    }
    const double window = last - first;
    const double traffic_gbs = window > 0 ? traffic_bytes / window : 0;  // B/ns = GB/s
    double done = first, predicted_last = first;
    for (const Event& e : events) {
      const double n = static_cast<double>(e.m->bytes);
      const double slow = model.slowdown_at(n, traffic_gbs);
      const SendLine line = model.send_line(n);
      // its latency from its own send, overlapping the messages before it; its bytes after theirs
      done = std::max(e.send + line.alpha_s * slow * 1e9, done) + line.beta_s_per_byte * n * slow * 1e9;
      // Seen by its receiver once that rank tests for it: after posting every send of its own (both
      // variants post their sends before they wait: Algorithm 1, and the notify variants' phase A).
      const double seen = std::max(done, last_send[e.receiver]);
      predicted_last = std::max(predicted_last, seen);
      per_kind[e.m->kind].first.push_back(e.recv - e.send);
      per_kind[e.m->kind].second.push_back(seen - e.send);
      kind_bytes[e.m->kind] = std::max(kind_bytes[e.m->kind], e.m->bytes);
    }
    p.measured_ns.push_back(window);
    p.predicted_ns.push_back(predicted_last - first);
    p.traffic_gbs.push_back(traffic_gbs);
  }
  for (const auto& [kind, mp] : per_kind)
    p.kinds.push_back({kind, kind_bytes[kind], median_of(mp.first), median_of(mp.second)});
  std::sort(p.kinds.begin(), p.kinds.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  std::vector<double> errors;
  for (std::size_t k = 0; k < p.measured_ns.size(); ++k)
    if (p.measured_ns[k] > 0) errors.push_back(p.predicted_ns[k] / p.measured_ns[k] - 1);
  if (!errors.empty()) {
    p.error_median = summarize(errors).median;
    p.error_ci95 = median_ci95(errors);
  }
  return p;
}

}  // namespace

std::vector<HaloPrediction> predict_halo(const NodeModel& model, const ResultsFile& halo) {
  if (halo.records.empty() || halo.probe() != "halo")
    throw usage_error(halo.path.string() + " is not a halo results file");
  const auto cannot = [&](const std::string& why) {
    return usage_error(halo.path.string() + ": a halo layout the model cannot place: " + why);
  };
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::map<int, RankRun>> runs;
  for (std::size_t i = 1; i < halo.records.size(); ++i) {
    const RecordRef r{halo.records[i], halo.place(i)};
    if (field_or<std::string>(r, "record", "") != "halo") continue;
    const int rank = field_or<int>(r, "rank", 0);
    if (rank < 0 || rank > 1) throw cannot("rank " + std::to_string(rank) + ": the model places two ranks");
    if (field_or<std::string>(r, "timeline.kept", "") != "all")
      throw cannot(std::string(r.place) + " keeps the timeline of " + field_or<std::string>(r, "timeline.kept", "?") +
                   " iterations; the prediction is checked iteration by iteration (--timeline all)");
    const std::pair key{field<std::string>(r, "layout"), field<std::string>(r, "setup")};
    if (runs.find(key) == runs.end()) order.push_back(key);
    RankRun run{r, messages(r, "pack"), messages(r, "unpack")};
    for (const auto* list : {&run.sends, &run.recvs})
      for (const Message& m : *list)
        if (m.peer != 1 - rank)
          throw cannot("rank " + std::to_string(rank) + " exchanges with rank " + std::to_string(m.peer) +
                       ": the model places one pair of ranks (--peers pair, two ranks)");
    runs[key].emplace(rank, std::move(run));
  }
  if (order.empty()) throw usage_error(halo.path.string() + " holds no halo records");
  std::vector<HaloPrediction> out;
  for (const auto& key : order) {
    auto& by_rank = runs[key];
    if (by_rank.size() != 2) throw cannot(key.first + " " + key.second + " has a record of one rank only");
    const RankRun pair[2] = {by_rank.at(0), by_rank.at(1)};
    if (field_json(pair[0].record, "timeline.iteration_index") !=
        field_json(pair[1].record, "timeline.iteration_index"))
      throw cannot(key.first + " " + key.second + ": the two ranks kept different iterations");
    out.push_back(predict(model, pair));
  }
  return out;
}

Json to_json(const HaloPrediction& p) {
  Json kinds = Json::array();
  for (const auto& k : p.kinds)
    kinds.push_back({{"kind", k.kind},
                     {"bytes", k.bytes},
                     {"measured_ns_median", k.measured_ns_median},
                     {"predicted_ns_median", k.predicted_ns_median}});
  const auto median_json = [](const std::vector<double>& v) { return v.empty() ? Json() : Json(summarize(v).median); };
  return {{"layout", p.layout},
          {"cube", p.cube},
          {"setup", p.setup},
          {"variant", p.variant},
          {"iterations", p.measured_ns.size()},
          {"measured_comm_ns_median", median_json(p.measured_ns)},
          {"predicted_comm_ns_median", median_json(p.predicted_ns)},
          {"traffic_gbs_median", median_json(p.traffic_gbs)},
          {"error_median", p.error_median},
          {"error_ci95", p.error_ci95 ? Json{p.error_ci95->low, p.error_ci95->high} : Json()},
          {"measured_comm_ns", p.measured_ns},
          {"predicted_comm_ns", p.predicted_ns},
          {"traffic_gbs", p.traffic_gbs},
          {"messages", kinds}};
}

Report model_report(const NodeModel& model, const Json& sources, const std::vector<HaloPrediction>& predictions) {
  Report report;
  report.about.push_back(
      "hetprobe model: the node's MPI path, t(n) = alpha + beta n, slowed by s(n, T) = 1 + "
      "gamma(n) T under T GB/s of GPU traffic (docs/metrics.md, The node model)");
  report.about.push_back("fitted from " + sources.value("fit", Json()).dump() + ", measured on " +
                         sources.value("node", Json()).dump());
  Table fit{"model_fit", {}, {}};
  fit.columns = {{"parameter", 24, Align::left},
                 {"bytes", 10},
                 {"to_bytes", 10},
                 {"median", 10, Align::right, 4},
                 {"ci95_low", 10, Align::right, 4},
                 {"ci95_high", 10, Align::right, 4},
                 {"unit", 12, Align::left},
                 {"rounds", 6},
                 {"points", 6},
                 {"traffic_max_gbs", 15, Align::right, 3},
                 {"mark", 4, Align::left, -1, Shown::text},
                 {"implausible", 0, Align::left, -1, Shown::data}};
  std::vector<std::string> implausible;  // the notes of the marked rows, "!1 alpha: why"
  const auto row = [&implausible](const std::string& name, const Json& bytes, const FittedValue& v, double scale,
                                  const char* unit, const Json& points, const Json& to_bytes = Json(),
                                  const Json& traffic_max = Json()) {
    std::string mark;
    if (v.implausible) {
      mark.append("!").append(std::to_string(implausible.size() + 1));
      std::string note = mark;
      note.append(" ").append(name).append(": implausible, ").append(*v.implausible);
      implausible.push_back(std::move(note));
    }
    return std::vector<Json>{name,
                             bytes,
                             to_bytes,
                             v.median * scale,
                             v.ci95 ? Json(v.ci95->low * scale) : Json(),
                             v.ci95 ? Json(v.ci95->high * scale) : Json(),
                             unit,
                             static_cast<int>(v.rounds),
                             points,
                             traffic_max,
                             mark,
                             json_or_null(v.implausible)};
  };
  fit.rows.push_back(row("alpha", Json(), model.alpha_s, 1e6, "us", Json()));
  fit.rows.push_back(row("beta (1/bandwidth)", Json(), model.beta_s_per_byte, 1e9, "ns/B", Json()));
  for (const SendSegment& s : model.segments) {
    const std::string side = s.rendezvous ? " (rendezvous)" : " (eager)";
    fit.rows.push_back(row("alpha" + side, s.from_bytes, s.alpha_s, 1e6, "us", Json(), s.to_bytes));
    fit.rows.push_back(row("beta" + side, s.from_bytes, s.beta_s_per_byte, 1e9, "ns/B", Json(), s.to_bytes));
  }
  for (const SizeSlowdown& s : model.slowdown)
    fit.rows.push_back(row("gamma (slowdown/traffic)", s.bytes, s.gamma_per_gbs, 1e3, "% per 10GB/s",
                           static_cast<int>(s.points), Json(), s.traffic_max_gbs));
  fit.notes.push_back(
      "median over the interference run's rounds of each round's fit, ci95 its 95% interval (6 "
      "rounds or more); alpha and beta: Eq. 2 over every size, then per segment (bytes to to_bytes, "
      "on one side of the eager limit) the line through its two sizes, which predicts a message "
      "between them (nearest outside); gamma per message size (the send's slowdown, %, per 10 GB/s "
      "of GPU traffic), interpolated in log(size) between them; traffic_max_gbs: the most a point of "
      "that size moved, the span gamma was fitted over");
  fit.notes.insert(fit.notes.end(), implausible.begin(), implausible.end());
  report.tables.push_back(std::move(fit));
  if (predictions.empty()) return report;
  Table t{"model_prediction", {}, {}};
  t.columns = {{"cube", 5},
               {"setup", 44, Align::left},
               {"n", 4},
               {"traffic_gbs", 11, Align::right, 2},
               {"measured_us", 11, Align::right, 1},
               {"predicted_us", 12, Align::right, 1},
               {"error_pct", 9, Align::right, 1},
               {"ci95_pct", 16, Align::right, -1, Shown::text},
               {"error_ci95_low_pct", 0, Align::right, -1, Shown::data},
               {"error_ci95_high_pct", 0, Align::right, -1, Shown::data},
               {"layout", 0, Align::left, -1, Shown::data}};
  for (const HaloPrediction& p : predictions) {
    const Json ci = p.error_ci95 ? Json{p.error_ci95->low * 100, p.error_ci95->high * 100} : Json();
    char ci_text[64] = "-";  // "-17.7 to 182.8": an error's interval may be negative
    if (p.error_ci95) std::snprintf(ci_text, sizeof ci_text, "%.1f to %.1f", ci[0].get<double>(), ci[1].get<double>());
    t.rows.push_back({p.cube, p.setup, static_cast<int>(p.measured_ns.size()), median_of(p.traffic_gbs),
                      median_of(p.measured_ns) / 1e3, median_of(p.predicted_ns) / 1e3, p.error_median * 100,
                      std::string(ci_text), ci.is_array() ? ci[0] : Json(), ci.is_array() ? ci[1] : Json(), p.layout});
  }
  t.notes.push_back(
      "per iteration, the communication window (first send to last receive, both ranks) measured and "
      "predicted; traffic_gbs: the GPU's pack and unpack bytes in that window over it; error = "
      "predicted / measured - 1, its median over the iterations and their 95% interval, %");
  report.tables.push_back(std::move(t));
  return report;
}

}  // namespace hetprobe
