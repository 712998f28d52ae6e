// JSON records of the interference probe. Field meanings and units:
// docs/results-schema.md. Numbers are as measured; a quantity that does not
// apply is null.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/effect.hpp"
#include "base/errors.hpp"
#include "base/stats.hpp"
#include "bench/core/noise.hpp"
#include "bench/core/rounds.hpp"
#include "bench/interference/interference.hpp"
#include "bench/interference/interference_resume.hpp"

namespace hetprobe {

namespace {

template <class F>
std::vector<double> each(const std::vector<SideSample>& samples, F f) {
  std::vector<double> out;
  for (const SideSample& s : samples) out.push_back(f(s));
  return out;
}

// bytes / seconds in GB/s (10^9 bytes per second); null when no time passed.
Json gbs(double bytes, double seconds) {
  if (!(seconds > 0)) return nullptr;
  return bytes / seconds * 1e-9;
}

// The timed interval of a side: the sender's send, the receiver's wait.
double timed_ns(const SideSample& s, bool sender) { return sender ? s.send_ns : s.wait_ns; }

// The paper's writer: its payload write, and its traffic after the ready
// flag. Without --paper the CPU writes the payload and the traffic is the load's.
Json writer_json(const std::vector<SideSample>& samples, const LayoutPlan& plan, bool sender, bool paper) {
  const double target = static_cast<double>(plan.post_bytes());
  const double message = static_cast<double>(plan.message_bytes);
  Json w;
  if (!paper) {
    w["pre_write_gbs"] = nullptr;
    return w;
  }
  w["pre_write_gbs"] = summary_json(each(samples, [&](const SideSample& s) {
    return s.writer_pre_s > 0 ? message / s.writer_pre_s * 1e-9 : 0.0;
  }));
  std::vector<double> post_gbs;
  for (const SideSample& s : samples)
    if (s.writer_post_s > 0) post_gbs.push_back(target * static_cast<double>(s.writer_passes) / s.writer_post_s * 1e-9);
  w["post_phase_gbs"] = summary_json(post_gbs);
  w["passes"] = each(samples, [](const SideSample& s) { return static_cast<double>(s.writer_passes); });
  if (sender) {
    double bytes = 0, ns = 0;
    std::vector<double> passes;
    for (const SideSample& s : samples) {
      bytes += target * static_cast<double>(s.passes_during_send);
      ns += s.send_ns;
      passes.push_back(static_cast<double>(s.passes_during_send));
    }
    w["passes_during_send"] = passes;
    w["bytes_during_send"] = bytes;
    w["bandwidth_during_send_gbs"] = plan.layout == Layout::SSB ? Json(0.0) : gbs(bytes, ns * 1e-9);
  }
  return w;
}

// A load GPU's visits summed up: seconds in all, the median visit's rate,
// the fewest workers that started, and the clock fit of its least precise visit.
void summarize_visits(Json& d) {
  const Json& visits = d["visits"];
  double seconds = 0, worst_precision = -1, control = 0;
  std::vector<double> rates;
  Json workers = nullptr, clock = nullptr;
  for (const Json& v : visits) {
    seconds += v["seconds"].get<double>();
    control += v["control_bytes"].get<double>();
    if (v["rate_gbs"].is_number()) rates.push_back(v["rate_gbs"].get<double>());
    if (workers.is_null() || v["workers_started"].get<double>() < workers.get<double>()) workers = v["workers_started"];
    if (const double p = v["clock_sync"]["precision_ns"].get<double>(); p > worst_precision)
      worst_precision = p, clock = v["clock_sync"];
  }
  d["seconds"] = seconds;
  d["control_traffic_gbs"] = seconds > 0 ? Json(control / seconds * 1e-9) : Json(nullptr);
  d["rate_over_point_gbs"] = rates.empty() ? Json(nullptr) : Json(summarize(rates).median);
  d["workers_started"] = workers;
  d["clock_sync"] = clock;
}

// One side's loads: per GPU the bytes inside each timed interval (null where
// the stamps did not cover it), and the traffic = their sum / the intervals' sum.
Json load_side_json(const std::vector<SideSample>& samples, const Json& info, bool sender) {
  if (!info.is_array() || info.empty()) return nullptr;
  Json devices = Json::array();
  std::vector<double> total_bytes(samples.size(), 0.0);
  std::vector<bool> total_known(samples.size(), true);
  double traffic = 0;
  for (std::size_t g = 0; g < info.size(); ++g) {
    Json d = info[g];
    summarize_visits(d);
    Json window = Json::array();
    double bytes = 0, ns = 0;
    int unresolved = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const double b = samples[i].load_bytes[g];
      if (std::isnan(b)) {
        window.push_back(nullptr);
        total_known[i] = false;
        ++unresolved;
        continue;
      }
      window.push_back(b);
      total_bytes[i] += b;
      bytes += b;
      ns += timed_ns(samples[i], sender);
    }
    d["bytes_during_send"] = window;
    d["traffic_during_send_gbs"] = gbs(bytes, ns * 1e-9);
    // Its stamps and flag reads at their rate over the visits, inside the sends (GB/s = B/ns).
    d["control_bytes_during_send"] = d["control_traffic_gbs"].is_number()
                                         ? Json(d["control_traffic_gbs"].get<double>() * ns)
                                         : Json(nullptr);
    d["unresolved_samples"] = unresolved;
    if (d["traffic_during_send_gbs"].is_number()) traffic += d["traffic_during_send_gbs"].get<double>();
    devices.push_back(d);
  }
  Json per_sample = Json::array();
  for (std::size_t i = 0; i < samples.size(); ++i)
    per_sample.push_back(total_known[i] ? Json(total_bytes[i]) : Json(nullptr));
  return Json{{"traffic_during_send_gbs", traffic}, {"bytes_during_send", per_sample}, {"devices", devices}};
}

Json load_json(const InterferenceConfig& cfg, const PointData& p, const Json& writer) {
  const PointKey& k = p.key;
  Json j{{"kind", to_string(k.load)},
         {"gpus", k.gpus},
         {"rate", k.rate ? Json(k.rate->label) : Json(nullptr)},
         {"paper", cfg.paper && k.load != LoadKind::none}};
  if (k.rate && !cfg.paper) {
    j["rate_fraction"] = k.rate->fraction > 0 ? Json(k.rate->fraction) : Json(nullptr);
    j["rate_gbs_per_gpu"] = k.rate->gbs > 0 ? Json(k.rate->gbs) : Json(nullptr);
  }
  if (k.load == LoadKind::none) {
    j["traffic_during_send_gbs"] = 0.0;
    j["sender"] = j["receiver"] = nullptr;
    return j;
  }
  if (cfg.paper) {
    // The paper's writer counts passes of a buffer the size of the message.
    const Json s = writer["sender"];
    j["engine"] = "paper writer";
    j["traffic_during_send_gbs"] = s.is_object() ? s["bandwidth_during_send_gbs"] : Json(nullptr);
    j["sender"] = j["receiver"] = nullptr;
    return j;
  }
  j["sender"] = load_side_json(p.sender, p.sender_load, true);
  j["receiver"] = load_side_json(p.receiver, p.receiver_load, false);
  const Json side = j["sender"].is_object() ? j["sender"] : j["receiver"];  // a copy: j grows below
  j["engine"] = side.is_object() ? side["devices"][0]["shape"]["engine"] : Json(nullptr);
  j["traffic_during_send_gbs"] = side.is_object() ? side["traffic_during_send_gbs"] : Json(nullptr);
  return j;
}

// The sender's writer start, ready flag and end on the host timeline, in ns
// relative to the start of the same sample's timed send.
Json writer_timeline_json(const PointData& p) {
  if (!p.sender_clock) return nullptr;
  const ClockFit& fit = *p.sender_clock;
  Json j{{"relative_to", "send start"},
         {"clock_sync",
          {{"samples", fit.samples_total},
           {"used", fit.samples_used},
           {"ns_per_tick", fit.mapping.ns_per_tick},
           {"precision_ns", fit.precision_ns},
           {"residual_rms_ns", fit.residual_rms_ns}}}};
  const char* names[3] = {"start_ns", "ready_ns", "end_ns"};
  for (int k = 0; k < 3; ++k) {
    std::vector<double> v;
    for (const SideSample& s : p.sender) v.push_back(fit.mapping.to_host_ns(s.writer_ticks[k]) - s.send_start_host_ns);
    j[names[k]] = v;
  }
  return j;
}

Json payload_json(const InterferenceConfig& cfg, const PointData& p, std::string& status) {
  Json j;
  j["policy"] = to_string(cfg.payload_check);
  if (cfg.payload_check == PayloadCheck::none) {
    j["check"] = "skipped";
    return j;
  }
  std::vector<SideSample> checked;
  for (const SideSample& s : p.receiver)
    if (s.payload_checked) checked.push_back(s);
  j["checked_samples"] = checked.size();
  std::vector<double> bad = each(checked, [](const SideSample& s) { return static_cast<double>(s.mismatched_bytes); });
  std::size_t samples_bad = 0;
  for (double b : bad) samples_bad += b > 0;
  j["mismatched_bytes"] = bad;
  j["samples_with_mismatch"] = samples_bad;
  // Racy by design when the GPU stores into the send buffer during the send:
  // report how much was torn, never call it a failure.
  const bool racy = p.key.layout == Layout::PSB && (p.key.load == LoadKind::write || p.key.load == LoadKind::copy_d2h);
  if (racy) {
    j["check"] = "torn";
    const double n = static_cast<double>(p.plan.message_bytes);
    j["torn_fraction"] = summary_json(each(checked, [n](const SideSample& s) {
      return static_cast<double>(s.mismatched_bytes) / n;
    }));
  } else {
    j["check"] = samples_bad ? "mismatch" : "intact";
    if (samples_bad) status = "payload_mismatch";
  }
  return j;
}

// Per round: the median of the sender's samples in it (NaN for a round with none).
std::vector<double> round_medians(const std::vector<SideSample>& samples, int rounds) {
  const std::vector<double> ns = each(samples, [](const SideSample& s) { return s.send_ns; });
  std::vector<int> round;
  for (const SideSample& s : samples) round.push_back(s.round);
  return hetprobe::round_medians(ns, round, rounds);
}

// The sender's timed sends: their summary, every sample with its round and
// its place in its visit, and each round's median.
Json samples_json(const std::vector<SideSample>& samples, const std::vector<double>& medians) {
  Json t = summary_json(each(samples, [](const SideSample& s) { return s.send_ns; }));
  t["samples"] = each(samples, [](const SideSample& s) { return s.send_ns; });
  t["rounds"] = each(samples, [](const SideSample& s) { return static_cast<double>(s.round); });
  Json positions = Json::array();
  for (const SideSample& s : samples) positions.push_back(s.visit_position);
  t["visit_positions"] = positions;
  t["round_medians"] = round_medians_json(medians);
  return t;
}

// The baseline's round medians spread by more than this (max / min) warn: the
// conditions moved during the size's rounds.
constexpr double kSsbDriftRatio = 1.2;

Json drift_warnings(const std::vector<double>& medians) {
  Json out = Json::array();
  double lo = INFINITY, hi = 0;
  for (double m : medians)
    if (!std::isnan(m)) lo = std::min(lo, m), hi = std::max(hi, m);
  if (hi > 0 && lo > 0 && hi / lo > kSsbDriftRatio) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "send_time_ns: the SSB median drifted by %.0f%% across its rounds (round medians %.4g to %.4g ns; "
                  "above %.0f%%): the node's conditions moved during the measurement, the paired ratios still hold",
                  (hi / lo - 1) * 100, lo, hi, (kSsbDriftRatio - 1) * 100);
    out.push_back(text);
  }
  return out;
}

// The ratio to SSB paired round by round: each round's median over the same
// round's SSB median; their median, its 95% interval (median_ci95: order
// statistics of the rounds' ratios), and the absolute medians beside them.
void paired_ratio_json(const PointData& p, const PointData* ssb, int rounds, const std::vector<double>& medians,
                       Json& r) {
  r["ssb_send_time_ns_median"] = nullptr;
  r["ratio_to_ssb_rounds"] = nullptr;
  r["ratio_to_ssb_median"] = nullptr;
  r["ratio_to_ssb_ci95"] = nullptr;
  r["effect"] = nullptr;
  if (ssb == nullptr || ssb->sender.empty()) return;
  std::vector<double> ratios;
  r["ratio_to_ssb_rounds"] = paired_rounds(medians, round_medians(ssb->sender, rounds), ratios);
  r["ssb_send_time_ns_median"] = summarize(each(ssb->sender, [](const SideSample& s) { return s.send_ns; })).median;
  if (ratios.empty()) return;
  r["ratio_to_ssb_median"] = summarize(ratios).median;
  if (const auto ci = median_ci95(ratios)) {
    r["ratio_to_ssb_ci95"] = {ci->low, ci->high};
    r["effect"] = to_string(classify_ratio(*ci));
  }
}

// With a --gap: the warm sends timed in the same visits, and the cold cost as
// the paired ratio cold / warm, round by round (both visits' medians), with
// its interval as the SSB ratio has. Null without a gap.
void cold_over_warm_json(const PointData& p, int rounds, const std::vector<double>& cold_medians, Json& r) {
  r["warm_send_time_ns"] = nullptr;
  r["cold_over_warm_rounds"] = nullptr;
  r["cold_over_warm_median"] = nullptr;
  r["cold_over_warm_ci95"] = nullptr;
  if (p.warm_sender.empty()) return;
  const std::vector<double> warm_medians = round_medians(p.warm_sender, rounds);
  r["warm_send_time_ns"] = samples_json(p.warm_sender, warm_medians);
  std::vector<double> ratios;
  r["cold_over_warm_rounds"] = paired_rounds(cold_medians, warm_medians, ratios);
  if (ratios.empty()) return;
  r["cold_over_warm_median"] = summarize(ratios).median;
  if (const auto ci = median_ci95(ratios)) r["cold_over_warm_ci95"] = {ci->low, ci->high};
}

// What the sender's GPU writes during the send: nothing (SSB), the send
// buffer, the secondary buffer beside it, or an allocation of its own.
Json writer_target(Layout layout) {
  switch (layout) {
    case Layout::SSB: return nullptr;
    case Layout::PSB: return "mpi";
    case Layout::OWN: return "own allocation";
    default: return "secondary";
  }
}

Json list_json(const std::vector<std::string>& items) {
  Json j = Json::array();
  for (const auto& s : items) j.push_back(s);
  return j;
}

}  // namespace

Json InterferenceConfig::to_json() const {
  Json sizes_json = Json::array();
  for (auto s : sizes) sizes_json.push_back(s);
  Json layouts_json = Json::array();
  for (auto l : layouts) layouts_json.push_back(to_string(l));
  Json access_json = Json::array();
  for (auto a : access) access_json.push_back(to_string(a));
  std::vector<std::string> kinds, rate_labels;
  for (LoadKind k : loads) kinds.push_back(to_string(k));
  for (const LoadRate& r : rates) rate_labels.push_back(r.label);
  const std::uint64_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  const bool per_message = paper ? !load_bytes.bytes : load_bytes.message;
  return Json{{"sizes_bytes", sizes_json},
              {"layouts", layouts_json},
              {"access", access_json},
              {"send_mode", to_string(send_mode)},
              {"writer_side", to_string(writer)},
              {"paper", paper},
              {"loads", paper ? Json::array({"write"}) : list_json(kinds)},
              {"load_bytes", per_message ? Json(nullptr) : Json(load_bytes_for(largest))},
              {"load_bytes_per_message", per_message},
              {"load_bytes_option", load_bytes.label()},
              {"load_rates", paper ? Json::array({"1"}) : list_json(rate_labels)},
              {"load_gpus", paper ? Json::array({1}) : Json(gpu_counts)},
              {"load_devices", load_devices},
              {"load_settle_s", kLoadSettleSeconds},
              {"rounds", rounds},
              {"reps", reps},
              {"warmup", warmup},
              {"seed", seed},
              {"gap", gap.to_json()},
              {"payload_writer", to_string(payload_writer(*this))},
              {"timeout_s", timeout_s},
              {"check_payload", payload_check != PayloadCheck::none},
              {"payload_check", to_string(payload_check)},
              {"host_stream", host_stream},
              {"mpi_buffer_alignment_bytes", kBufferAlignment},
              {"p2ab_gap_bytes", kP2abGap}};
}

PointKey point_key_of(const Json& r) { return point_key({r, "interference point"}); }

Json point_record(const InterferenceConfig& cfg, const PointData& p, const PointData* ssb, const MessagePath& path) {
  const WriterShape& shape = p.writer_shape;
  std::string status = "ok";
  Json r;
  r["record"] = "point";
  r["probe"] = "interference";
  r["size_bytes"] = p.key.size;
  r["layout"] = to_string(p.key.layout);
  r["access"] = to_string(p.key.access);
  r["load_kind"] = to_string(p.key.load);
  r["load_gpus"] = p.key.gpus;
  r["load_rate"] = p.key.rate ? Json(p.key.rate->label) : Json(nullptr);
  r["send_mode"] = to_string(cfg.send_mode);
  r["writer_side"] = to_string(cfg.writer);
  r["mpi_path"] = message_path_json(path, p.key.size);
  r["gap"] = cfg.gap.to_json();
  r["gap"]["spent_ns"] = summary_json(each(p.sender, [](const SideSample& s) { return s.gap_ns; }))["median"];
  r["buffers"] = {{"mpi_offset_bytes", p.plan.mpi_offset},
                  {"secondary_offset_bytes", p.plan.secondary_bytes ? Json(p.plan.secondary_offset) : Json(nullptr)},
                  {"secondary_bytes", p.plan.secondary_bytes},
                  {"gap_bytes", p.plan.gap_bytes},
                  {"writer_target", writer_target(p.key.layout)},
                  {"writer_target_bytes", p.key.layout == Layout::SSB            ? 0
                                          : load_in_own_allocation(p.key.layout) ? cfg.load_bytes_for(p.key.size)
                                                                                 : p.plan.post_bytes()}};
  r["writer_shape"] = {{"blocks", shape.blocks}, {"threads_per_block", shape.threads_per_block}};
  r["payload_writer"] = to_string(payload_writer(cfg));
  r["warmup"] = cfg.warmup;
  r["rounds"] = cfg.rounds;
  r["reps"] = cfg.reps;
  r["round_positions"] = p.positions;
  r["n"] = p.sender.size();
  const std::vector<double> medians = round_medians(p.sender, cfg.rounds);
  r["send_time_ns"] = samples_json(p.sender, medians);
  r["warnings"] = spread_warnings(r["send_time_ns"], "send_time_ns");
  if (p.key.layout == Layout::SSB)
    for (Json& w : drift_warnings(medians)) r["warnings"].push_back(std::move(w));
  r["harness_empty_region_ns"] = summary_json(each(p.sender, [](const SideSample& s) { return s.empty_region_ns; }));
  paired_ratio_json(p, ssb, cfg.rounds, medians, r);
  cold_over_warm_json(p, cfg.rounds, medians, r);
  const bool on_sender = cfg.writer != WriterSide::receiver;
  const bool on_receiver = cfg.writer != WriterSide::sender;
  r["writer"] = {{"sender", on_sender ? writer_json(p.sender, p.plan, true, cfg.paper) : Json(nullptr)},
                 {"receiver", on_receiver ? writer_json(p.receiver, p.plan, false, cfg.paper) : Json(nullptr)}};
  r["load"] = load_json(cfg, p, r["writer"]);
  r["writer_timeline"] = cfg.paper ? writer_timeline_json(p) : Json(nullptr);
  r["payload"] = payload_json(cfg, p, status);
  r["status"] = status;
  return r;
}

}  // namespace hetprobe
