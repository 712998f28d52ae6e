// JSON records of the interference probe. Field meanings and units:
// docs/results-schema.md. Numbers are as measured; a quantity that does not
// apply is null.
#include <cmath>

#include "hetprobe/errors.hpp"
#include "hetprobe/interference.hpp"
#include "hetprobe/stats.hpp"

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

Json writer_json(const std::vector<SideSample>& samples, const LayoutPlan& plan, bool sender) {
  const double target = static_cast<double>(plan.post_bytes());
  const double message = static_cast<double>(plan.message_bytes);
  Json w;
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

// The sender's writer start, ready flag and end on the host timeline, in ns
// relative to the start of the same sample's timed send.
Json writer_timeline_json(const PointData& p) {
  if (!p.sender_clock) return nullptr;
  const ClockFit& fit = *p.sender_clock;
  Json j{{"relative_to", "send start"},
         {"clock_sync", {{"samples", fit.samples_total},
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
  if (!cfg.check_payload) {
    j["check"] = "skipped";
    return j;
  }
  std::vector<double> bad = each(p.receiver, [](const SideSample& s) { return static_cast<double>(s.mismatched_bytes); });
  std::size_t samples_bad = 0;
  for (double b : bad) samples_bad += b > 0;
  j["mismatched_bytes"] = bad;
  j["samples_with_mismatch"] = samples_bad;
  if (p.key.layout == Layout::PSB) {
    // Racy by design: report how much was torn, never call it a failure.
    j["check"] = "torn";
    const double n = static_cast<double>(p.plan.message_bytes);
    j["torn_fraction"] = summary_json(each(p.receiver, [n](const SideSample& s) {
      return static_cast<double>(s.mismatched_bytes) / n;
    }));
  } else {
    j["check"] = samples_bad ? "mismatch" : "intact";
    if (samples_bad) status = "payload_mismatch";
  }
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
  return Json{{"sizes_bytes", sizes_json},
              {"layouts", layouts_json},
              {"access", access_json},
              {"send_mode", to_string(send_mode)},
              {"writer_side", to_string(writer)},
              {"secondary_bytes", secondary_bytes ? Json(secondary_bytes) : Json("message size")},
              {"reps", reps},
              {"warmup", warmup},
              {"timeout_s", timeout_s},
              {"check_payload", check_payload},
              {"mpi_buffer_alignment_bytes", kBufferAlignment},
              {"p2ab_gap_bytes", kP2abGap}};
}

PointKey point_key_of(const Json& r) {
  try {
    return {r.at("size_bytes").get<std::uint64_t>(), parse_layout(r.at("layout").get<std::string>()),
            r.at("access").get<std::string>() == "stream" ? Access::stream : Access::stacked};
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::io, std::string("a point record lacks its key fields: ") + e.what());
  }
}

Json point_record(const InterferenceConfig& cfg, const PointData& p, const Device& device,
                  std::optional<double> ssb_median_ns) {
  const auto send_ns = each(p.sender, [](const SideSample& s) { return s.send_ns; });
  const WriterShape shape = device.writer_shape(p.key.access);
  std::string status = "ok";
  Json r;
  r["record"] = "point";
  r["probe"] = "interference";
  r["size_bytes"] = p.key.size;
  r["layout"] = to_string(p.key.layout);
  r["access"] = to_string(p.key.access);
  r["send_mode"] = to_string(cfg.send_mode);
  r["writer_side"] = to_string(cfg.writer);
  r["buffers"] = {{"mpi_offset_bytes", p.plan.mpi_offset},
                  {"secondary_offset_bytes", p.plan.secondary_bytes ? Json(p.plan.secondary_offset) : Json(nullptr)},
                  {"secondary_bytes", p.plan.secondary_bytes},
                  {"gap_bytes", p.plan.gap_bytes},
                  {"writer_target", p.key.layout == Layout::SSB   ? Json(nullptr)
                                    : p.key.layout == Layout::PSB ? Json("mpi")
                                                                  : Json("secondary")},
                  {"writer_target_bytes", p.plan.post_bytes()}};
  r["writer_shape"] = {{"blocks", shape.blocks}, {"threads_per_block", shape.threads_per_block}};
  r["warmup"] = cfg.warmup;
  r["n"] = send_ns.size();
  Json t = summary_json(send_ns);
  t["samples"] = send_ns;
  r["send_time_ns"] = t;
  r["harness_empty_region_ns"] = summary_json(each(p.sender, [](const SideSample& s) { return s.empty_region_ns; }));
  const double median = t["median"].get<double>();
  r["ratio_to_ssb_median"] = ssb_median_ns && *ssb_median_ns > 0 ? Json(median / *ssb_median_ns) : Json(nullptr);
  const bool on_sender = cfg.writer != WriterSide::receiver;
  const bool on_receiver = cfg.writer != WriterSide::sender;
  r["writer"] = {{"sender", on_sender ? writer_json(p.sender, p.plan, true) : Json(nullptr)},
                 {"receiver", on_receiver ? writer_json(p.receiver, p.plan, false) : Json(nullptr)}};
  r["writer_timeline"] = writer_timeline_json(p);
  r["payload"] = payload_json(cfg, p, status);
  r["status"] = status;
  return r;
}

}  // namespace hetprobe
