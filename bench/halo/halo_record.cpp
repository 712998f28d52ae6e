// Records of the halo probe (schema: docs/results-schema.md); its table: halo_table.cpp.
#include "bench/halo/halo_record.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>

#include "base/stats.hpp"
#include "bench/core/noise.hpp"
#include "bench/core/rounds.hpp"
#include "bench/halo/halo_phases.hpp"

namespace hetprobe {

namespace {

// Sends are listed with the rank they go to, receives with the rank they come
// from; each with its median device time, its rate, and with memcpy staging its copy's median.
Json per_message(const std::vector<HaloMessage>& msgs, const std::vector<double>& device_ns,
                 const std::vector<double>& copy_ns, bool memcpy, bool sends) {
  Json out = Json::array();
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    const Json ns = i < device_ns.size() ? Json(device_ns[i]) : Json(nullptr);
    Json m{{"tag", msgs[i].index},
           {"kind", msgs[i].kind},
           {"bytes", msgs[i].bytes},
           {"peer", sends ? msgs[i].send_to : msgs[i].recv_from},
           {sends ? "pack_ns_median" : "unpack_ns_median", ns},
           {sends ? "pack_gbs_median" : "unpack_gbs_median",
            ns.is_null() ? Json(nullptr) : gbs_json(msgs[i].bytes, ns.get<double>())}};
    if (memcpy) m["copy_ns_median"] = i < copy_ns.size() ? Json(copy_ns[i]) : Json(nullptr);
    out.push_back(std::move(m));
  }
  return out;
}

// The record's field of a stage's busy record, and the bound it is held to
// (halo_link.hpp): pinned staging's kernels and memcpy staging's copies to the
// link, memcpy staging's kernels to device memory.
struct BusyStage {
  const char* field;
  HaloSpan span;
  HaloBound bound;
};
BusyStage busy_stage(HaloSpan span, bool memcpy) {
  switch (span) {
    case HaloSpan::pack: return {"pack_busy", span, memcpy ? HaloBound::device_memory : HaloBound::link_to_host};
    case HaloSpan::unpack: return {"unpack_busy", span, memcpy ? HaloBound::device_memory : HaloBound::link_to_device};
    case HaloSpan::copy_to_host: return {"copy_busy", span, HaloBound::link_to_host};
    case HaloSpan::copy_to_device: break;
  }
  return {"recv_copy_busy", span, HaloBound::link_to_device};
}

// A stage's busy record (halo_phases.hpp) with its bound's fields
// (halo_link.hpp); a stage above its bound adds its warning to `warnings`.
Json busy_json(const HaloRun& run, const std::vector<HaloMessage>& msgs, const BusyStage& stage, Json& warnings) {
  Json busy = to_json(busy_time(run, msgs, stage.span));
  if (busy.is_null()) return busy;
  const Json gbs = busy["gbs_median"];
  busy.update(bound_json(run.link, stage.bound, gbs));
  const HaloBoundFields f = bound_fields(stage.bound);
  if (busy[f.above] == Json(true))
    warnings.push_back(bound_warning(stage.field, stage.bound, gbs.get<double>(), busy[f.gbs].get<double>()));
  return busy;
}

Json shape_json(const HaloShape& shape) {
  return {{"blocks", shape.blocks}, {"threads_per_block", shape.threads_per_block}, {"parts", to_json(shape.parts)}};
}

// The message a model term is about: the smallest send, the largest receive.
template <class Better>
std::size_t pick(const std::vector<HaloMessage>& msgs, Better better) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < msgs.size(); ++i)
    if (better(msgs[i].bytes, msgs[best].bytes)) best = i;
  return best;
}

}  // namespace

HaloModelInputs model_inputs(const HaloRun& run, const HaloLayout& layout) {
  HaloModelInputs in;
  if (!layout.sends.empty()) in.pack_smallest_ns = run.pack_device_ns[pick(layout.sends, std::less<>())];
  if (layout.recvs.empty()) return in;
  const std::size_t largest = pick(layout.recvs, std::greater<>());
  in.unpack_largest_ns = run.unpack_device_ns[largest];
  const std::vector<double> copies = copy_medians(run).recv_ns;
  if (largest < copies.size()) in.copy_largest_ns = copies[largest];
  return in;
}

Json halo_record(const HaloRun& run, const HaloLayout& layout, const HaloConfig& config,
                 const std::vector<double>& slowest_rank_ns) {
  std::vector<double> totals;
  for (const auto& it : run.iterations) totals.push_back(it.total_ns);
  std::vector<std::size_t> kept;
  if (config.timeline == HaloTimeline::all) {
    for (std::size_t i = 0; i < totals.size(); ++i) kept.push_back(i);
  } else if (config.timeline == HaloTimeline::median && !totals.empty()) {
    std::vector<std::size_t> order(totals.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return totals[a] < totals[b]; });
    kept.push_back(order[order.size() / 2]);
  }
  std::vector<HaloCriticalPath> paths;
  for (const auto& it : run.iterations) paths.push_back(critical_path(it, layout));
  Json timeline = Json::array();
  for (std::size_t i : kept) {
    const HaloIteration& it = run.iterations[i];
    timeline.push_back({{"total_ns", it.total_ns},
                        {"pack_start_ns", it.pack_start_ns},
                        {"pack_end_ns", it.pack_end_ns},
                        {"copy_start_ns", it.copy_start_ns},
                        {"copy_end_ns", it.copy_end_ns},
                        {"send_ns", it.send_ns},
                        {"recv_ns", it.recv_ns},
                        {"recv_copy_end_ns", it.recv_copy_end_ns},
                        {"unpack_start_ns", it.unpack_start_ns},
                        {"unpack_end_ns", it.unpack_end_ns},
                        {"critical_path_ns", to_json(paths[i])}});
  }
  std::vector<int> rounds;
  for (const auto& it : run.iterations) rounds.push_back(it.round);
  // Every sample, and each round's median: what a speed-up pairs (the
  // iterations' rounds once, in iteration_ns: the slowest rank's are the same iterations).
  auto with_rounds = [&](const std::vector<double>& samples) {
    Json j = summary_json(samples);
    if (j.is_null()) return j;
    j["samples"] = samples;
    j["round_medians"] = round_medians_json(round_medians(samples, rounds, config.rounds));
    return j;
  };
  Json iteration = with_rounds(totals);
  if (!iteration.is_null()) iteration["rounds"] = rounds;
  Json slowest = with_rounds(slowest_rank_ns);
  const HaloModelInputs in = model_inputs(run, layout);
  const bool intact = run.mismatched_words == 0 && run.timeouts == 0;
  const HaloSetup& s = run.setup;
  const bool baseline = s.variant == HaloVariant::baseline, memcpy = s.staging == HaloStaging::memcpy;
  const HaloCopyMedians copies = copy_medians(run);
  // The slowest rank's tail shows noise on any rank.
  Json warnings = slowest.is_null() ? spread_warnings(iteration, "iteration_ns")
                                    : spread_warnings(slowest, "slowest_rank_iteration_ns");
  Json pack_busy = busy_json(run, layout.sends, busy_stage(HaloSpan::pack, memcpy), warnings);
  Json unpack_busy = busy_json(run, layout.recvs, busy_stage(HaloSpan::unpack, memcpy), warnings);
  Json copy_busy = memcpy ? busy_json(run, layout.sends, busy_stage(HaloSpan::copy_to_host, true), warnings) : nullptr;
  Json recv_copy_busy = memcpy ? busy_json(run, layout.recvs, busy_stage(HaloSpan::copy_to_device, true), warnings)
                               : nullptr;
  return {{"record", "halo"},
          {"probe", "halo"},
          {"variant", to_string(s.variant)},
          {"setup", s.label()},
          {"layout", layout.source},
          {"cube", layout.cube},
          {"peers", layout.cube ? Json(to_string(layout.peers)) : Json(nullptr)},
          {"send_mode", to_string(s.send_mode)},
          {"receive_wait", to_string(baseline ? s.receive_wait : HaloReceiveWait::testany)},
          {"signal", baseline ? Json(nullptr) : Json(to_string(s.signal))},
          {"staging", to_string(s.staging)},
          {"threads_per_block", s.threads_per_block},
          {"poll_pause_ns", baseline ? Json(nullptr) : Json(s.poll_pause_ns)},
          {"parts", to_json(s.parts)},
          {"launch", shape_json(run.launch)},
          {"unpack_launch", s.variant == HaloVariant::notify_stacked ? Json(nullptr) : shape_json(run.unpack_launch)},
          {"stacked_long_bytes", run.long_bytes ? Json(run.long_bytes) : Json(nullptr)},
          {"messages_sent", layout.sends.size()},
          {"bytes_sent", layout.send_bytes()},
          {"rounds", config.rounds},
          {"warmup", config.warmup},
          {"n", run.iterations.size()},
          {"iteration_ns", iteration},
          {"slowest_rank_iteration_ns", slowest},
          {"warnings", warnings},
          {"pack_smallest_ns", in.pack_smallest_ns},
          {"unpack_largest_ns", in.unpack_largest_ns},
          {"pack", per_message(layout.sends, run.pack_device_ns, copies.send_ns, memcpy, true)},
          {"unpack", per_message(layout.recvs, run.unpack_device_ns, copies.recv_ns, memcpy, false)},
          {"pack_busy", pack_busy},
          {"unpack_busy", unpack_busy},
          {"copy_busy", copy_busy},
          {"recv_copy_busy", recv_copy_busy},
          {"critical_path_ns", median_json(paths)},
          {"payload",
           {{"check", intact ? "intact" : "mismatch"},
            {"mismatched_words", run.mismatched_words},
            {"unpack_timeouts", run.timeouts}}},
          {"timeline",
           {{"relative_to", "iteration start (after its barrier)"},
            {"kept", to_string(config.timeline)},
            {"iteration_index", kept},
            {"iterations", timeline},
            {"clock_sync",
             {{"samples", run.clock.samples_total},
              {"used", run.clock.samples_used},
              {"ns_per_tick", run.clock.mapping.ns_per_tick},
              {"precision_ns", run.clock.precision_ns}}}}},
          {"status", intact ? "ok" : (run.timeouts ? "timeout" : "payload_mismatch")}};
}

Json halo_model_record(const HaloModelSetup& setup, const HaloLayout& layout, const std::vector<HaloRun>& runs) {
  std::uint64_t largest = 0;
  for (const auto& r : layout.recvs) largest = std::max(largest, r.bytes);
  double comm_s = postal_time_s(setup.postal, static_cast<double>(largest));
  if (setup.kmodel) comm_s = kmodel_time_s(*setup.kmodel, static_cast<double>(largest));
  Json bounds = Json::object(), terms = Json::object();
  for (const HaloRun& run : runs) {
    const HaloModelInputs in = model_inputs(run, layout);
    const LowerBound b = lower_bound(in.pack_smallest_ns * 1e-9, comm_s, in.unpack_largest_ns * 1e-9,
                                     in.copy_largest_ns * 1e-9);
    bounds[run.setup.label()] = b.total_s * 1e9;
    terms[run.setup.label()] = to_json(b);
  }
  Json measured = Json::array();
  for (std::size_t i = 0; i < setup.sizes.size(); ++i)
    measured.push_back({{"bytes", setup.sizes[i]}, {"one_way_ns", setup.one_way_ns[i]}});
  return {{"record", "halo_model"},
          {"probe", "halo"},
          {"layout", layout.source},
          {"cube", layout.cube},
          {"mpi_parameters", setup.given ? "given" : "measured"},
          {"one_way", measured},
          {"postal", to_json(setup.postal)},
          {"kmodel", setup.kmodel ? to_json(*setup.kmodel) : Json(nullptr)},
          {"largest_message_bytes", largest},
          {"comm_ns", comm_s * 1e9},
          {"lower_bound_ns", bounds},
          {"terms", terms}};
}

}  // namespace hetprobe
