#include "bench/model/node_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/errors.hpp"
#include "base/number_text.hpp"
#include "bench/model/halo_model.hpp"

namespace hetprobe {

namespace {

FittedValue fitted(const std::vector<double>& per_round) {
  FittedValue v;
  v.rounds = per_round.size();
  if (per_round.empty()) return v;
  v.median = summarize(per_round).median;
  v.ci95 = median_ci95(per_round);
  return v;
}

std::size_t rounds_of(const std::vector<IdleSeries>& idle) {
  std::size_t n = 0;
  for (const IdleSeries& s : idle) n = std::max(n, s.round_medians_ns.size());
  return n;
}

bool rendezvous(std::optional<std::uint64_t> eager_limit, double bytes) {
  return eager_limit && bytes >= static_cast<double>(*eager_limit);
}

// A latency or an inverse bandwidth below 0 describes no send: the times
// the line went through do not grow with size as a send's do. (A segment's
// alpha is its line's value at 0 bytes, far below its sizes: below 0 it is
// an extrapolation, not a latency, and its line still predicts its sizes.)
FittedValue marked_send_term(FittedValue v, const char* why) {
  if (v.rounds > 0 && v.median < 0) v.implausible = why;
  return v;
}

// gamma's line at the most traffic measured at its size against what that
// size's points measured in any round (and 1, for no traffic): a line that
// leaves that span is not what the points say.
FittedValue marked_slowdown(FittedValue gamma, const std::vector<const LoadedSeries*>& points, double traffic_max) {
  double lowest = 1, highest = 1;
  for (const LoadedSeries* p : points)
    for (double r : p->round_ratios)
      if (std::isfinite(r)) {
        lowest = std::min(lowest, r);
        highest = std::max(highest, r);
      }
  const double predicted = 1 + gamma.median * traffic_max;
  if (predicted < lowest || predicted > highest)
    gamma.implausible = "predicts " + number_text(predicted) + " x at " + number_text(traffic_max) +
                        " GB/s, outside the " + range_text(lowest, highest) +
                        " x that this size's points measured in their rounds";
  return gamma;
}

constexpr const char* kNegativeLatency = "a negative latency: no send takes less than no time";
constexpr const char* kNegativeInverseBandwidth = "a negative inverse bandwidth: the times fall with size";

// Each size's time per round: the median of its series' round medians (the
// interference and rate runs both measure SSB at each size).
std::map<std::uint64_t, std::vector<double>> round_times_by_size(const std::vector<IdleSeries>& idle,
                                                                 std::size_t rounds) {
  std::map<std::uint64_t, std::vector<double>> out;
  std::map<std::uint64_t, std::vector<const IdleSeries*>> by_size;
  for (const IdleSeries& s : idle) by_size[s.bytes].push_back(&s);
  for (const auto& [bytes, series] : by_size) {
    std::vector<double>& times = out[bytes];
    for (std::size_t r = 0; r < rounds; ++r) {
      std::vector<double> v;
      for (const IdleSeries* s : series)
        if (r < s->round_medians_ns.size() && std::isfinite(s->round_medians_ns[r]) && s->round_medians_ns[r] > 0)
          v.push_back(s->round_medians_ns[r] * 1e-9);
      times.push_back(v.empty() ? std::nan("") : summarize(v).median);
    }
  }
  return out;
}

// Per pair of neighbouring sizes on one side of the eager limit, the line
// through their times in each round that has both.
std::vector<SendSegment> fit_segments(const std::vector<IdleSeries>& idle, std::size_t rounds,
                                      std::optional<std::uint64_t> eager_limit) {
  const auto times = round_times_by_size(idle, rounds);
  std::vector<SendSegment> out;
  for (auto a = times.begin(); a != times.end(); ++a) {
    const auto b = std::next(a);
    if (b == times.end()) break;
    const bool side = rendezvous(eager_limit, static_cast<double>(a->first));
    if (side != rendezvous(eager_limit, static_cast<double>(b->first))) continue;
    std::vector<double> alphas, betas;
    for (std::size_t r = 0; r < rounds; ++r) {
      const double ta = a->second[r], tb = b->second[r];
      if (!std::isfinite(ta) || !std::isfinite(tb)) continue;
      const double beta = (tb - ta) / static_cast<double>(b->first - a->first);
      betas.push_back(beta);
      alphas.push_back(ta - beta * static_cast<double>(a->first));
    }
    if (!betas.empty())
      out.push_back({a->first, b->first, side, fitted(alphas),
                     marked_send_term(fitted(betas), kNegativeInverseBandwidth)});
  }
  return out;  // ascending sizes: the eager segments, then the rendezvous ones
}

}  // namespace

NodeModel fit_node_model(const std::vector<IdleSeries>& idle, const std::vector<LoadedSeries>& loaded,
                         std::optional<std::uint64_t> eager_limit_bytes) {
  NodeModel m;
  m.eager_limit_bytes = eager_limit_bytes;
  const std::size_t rounds = rounds_of(idle);
  std::vector<double> alphas, betas;
  for (std::size_t r = 0; r < rounds; ++r) {
    std::vector<double> bytes, seconds;
    for (const IdleSeries& s : idle)
      if (r < s.round_medians_ns.size() && std::isfinite(s.round_medians_ns[r]) && s.round_medians_ns[r] > 0) {
        bytes.push_back(static_cast<double>(s.bytes));
        seconds.push_back(s.round_medians_ns[r] * 1e-9);
      }
    PostalModel p;
    try {
      p = fit_postal(bytes, seconds, FitError::relative);
    } catch (const Error& e) {  // its check of 2 sizes (the times are finite and above 0), named for this round
      throw usage_error("the node model needs the idle (SSB) send time at 2 sizes or more in every round; round " +
                        std::to_string(r + 1) + ": " + e.what());
    }
    alphas.push_back(p.alpha_s);
    betas.push_back(p.beta_s_per_byte);
  }
  if (rounds == 0) throw usage_error("the node model needs the idle (SSB) send time: no SSB point with rounds");
  m.alpha_s = marked_send_term(fitted(alphas), kNegativeLatency);
  m.beta_s_per_byte = marked_send_term(fitted(betas), kNegativeInverseBandwidth);
  m.segments = fit_segments(idle, rounds, eager_limit_bytes);
  std::map<std::uint64_t, std::vector<const LoadedSeries*>> by_size;
  for (const LoadedSeries& s : loaded)
    if (s.traffic_gbs > 0) by_size[s.bytes].push_back(&s);
  for (const auto& [bytes, points] : by_size) {
    std::size_t n = 0;
    for (const LoadedSeries* p : points) n = std::max(n, p->round_ratios.size());
    std::vector<double> gammas;
    double traffic_max = 0;
    for (const LoadedSeries* p : points) traffic_max = std::max(traffic_max, p->traffic_gbs);
    for (std::size_t r = 0; r < n; ++r) {
      double stt = 0, sty = 0;  // least squares through the origin: gamma = sum(T (rho - 1)) / sum(T^2)
      for (const LoadedSeries* p : points)
        if (r < p->round_ratios.size() && std::isfinite(p->round_ratios[r])) {
          stt += p->traffic_gbs * p->traffic_gbs;
          sty += p->traffic_gbs * (p->round_ratios[r] - 1);
        }
      if (stt > 0) gammas.push_back(sty / stt);
    }
    if (!gammas.empty())
      m.slowdown.push_back({bytes, marked_slowdown(fitted(gammas), points, traffic_max), points.size(), traffic_max});
  }
  return m;
}

SendLine NodeModel::send_line(double bytes) const {
  const bool side = rendezvous(eager_limit_bytes, bytes);
  const SendSegment* chosen = nullptr;  // the first that reaches `bytes`, else the last
  for (const SendSegment& s : segments) {
    if (s.rendezvous != side) continue;
    chosen = &s;
    if (bytes <= static_cast<double>(s.to_bytes)) break;
  }
  if (chosen == nullptr) return {alpha_s.median, beta_s_per_byte.median};
  return {chosen->alpha_s.median, chosen->beta_s_per_byte.median};
}

double NodeModel::send_time_s(double bytes) const {
  const SendLine line = send_line(bytes);
  return line.alpha_s + line.beta_s_per_byte * bytes;
}

double NodeModel::slowdown_at(double bytes, double traffic_gbs) const {
  if (slowdown.empty() || traffic_gbs <= 0) return 1;
  double gamma = slowdown.front().gamma_per_gbs.median;
  if (bytes >= static_cast<double>(slowdown.back().bytes)) {
    gamma = slowdown.back().gamma_per_gbs.median;
  } else if (bytes > static_cast<double>(slowdown.front().bytes)) {
    // log(n) interpolation between the two measured sizes around it
    const auto hi = std::find_if(slowdown.begin(), slowdown.end(),
                                 [&](const SizeSlowdown& s) { return static_cast<double>(s.bytes) >= bytes; });
    const auto lo = hi - 1;
    const double x = std::log(bytes), x0 = std::log(static_cast<double>(lo->bytes)),
                 x1 = std::log(static_cast<double>(hi->bytes));
    const double f = (x - x0) / (x1 - x0);
    gamma = lo->gamma_per_gbs.median + f * (hi->gamma_per_gbs.median - lo->gamma_per_gbs.median);
  }
  return 1 + gamma * traffic_gbs;
}

Json to_json(const FittedValue& v) {
  return {{"median", v.median},
          {"ci95", v.ci95 ? Json{v.ci95->low, v.ci95->high} : Json(nullptr)},
          {"rounds", v.rounds},
          {"implausible", json_or_null(v.implausible)}};
}

Json to_json(const NodeModel& m) {
  Json slow = Json::array();
  for (const SizeSlowdown& s : m.slowdown)
    slow.push_back({{"bytes", s.bytes},
                    {"gamma_per_gbs", to_json(s.gamma_per_gbs)},
                    {"points", s.points},
                    {"traffic_max_gbs", s.traffic_max_gbs}});
  Json segments = Json::array();
  for (const SendSegment& s : m.segments)
    segments.push_back({{"from_bytes", s.from_bytes},
                        {"to_bytes", s.to_bytes},
                        {"rendezvous", s.rendezvous},
                        {"alpha_s", to_json(s.alpha_s)},
                        {"beta_s_per_byte", to_json(s.beta_s_per_byte)}});
  return {{"alpha_s", to_json(m.alpha_s)},
          {"beta_s_per_byte", to_json(m.beta_s_per_byte)},
          {"eager_limit_bytes", m.eager_limit_bytes ? Json(*m.eager_limit_bytes) : Json()},
          {"segments", segments},
          {"slowdown", slow}};
}

}  // namespace hetprobe
