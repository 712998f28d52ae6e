// Records and table of the halo probe (schema: docs/results-schema.md).
#include "hetprobe/halo_record.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <string>

#include "hetprobe/stats.hpp"

namespace hetprobe {

namespace {

// Sends are listed with the rank they go to, receives with the rank they come from.
Json per_message(const std::vector<HaloMessage>& msgs, const std::vector<double>& device_ns, bool sends) {
  Json out = Json::array();
  for (std::size_t i = 0; i < msgs.size(); ++i)
    out.push_back({{"tag", msgs[i].index}, {"kind", msgs[i].kind}, {"bytes", msgs[i].bytes},
                   {"peer", sends ? msgs[i].send_to : msgs[i].recv_from},
                   {sends ? "pack_ns_median" : "unpack_ns_median", i < device_ns.size() ? Json(device_ns[i]) : Json(nullptr)}});
  return out;
}

// The message a model term is about: the smallest send, the largest receive.
template <class Better>
std::size_t pick(const std::vector<HaloMessage>& msgs, Better better) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < msgs.size(); ++i)
    if (better(msgs[i].bytes, msgs[best].bytes)) best = i;
  return best;
}

std::string short_layout(const Json& r) {
  return r["cube"].get<int>() > 0 ? "cube " + std::to_string(r["cube"].get<int>()) : r["layout"].get<std::string>();
}

}  // namespace

HaloModelInputs model_inputs(const HaloRun& run, const HaloLayout& layout) {
  HaloModelInputs in;
  if (!layout.sends.empty()) in.pack_smallest_ns = run.pack_device_ns[pick(layout.sends, std::less<>())];
  if (!layout.recvs.empty()) in.unpack_largest_ns = run.unpack_device_ns[pick(layout.recvs, std::greater<>())];
  return in;
}

Json halo_record(const HaloRun& run, const HaloLayout& layout, const HaloConfig& config,
                 const std::vector<double>& slowest_rank_ns) {
  std::vector<double> totals;
  for (const auto& it : run.iterations) totals.push_back(it.total_ns);
  std::vector<std::size_t> kept;
  if (config.timeline == "all") {
    for (std::size_t i = 0; i < totals.size(); ++i) kept.push_back(i);
  } else if (config.timeline == "median" && !totals.empty()) {
    std::vector<std::size_t> order(totals.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return totals[a] < totals[b]; });
    kept.push_back(order[order.size() / 2]);
  }
  Json timeline = Json::array();
  for (std::size_t i : kept) {
    const HaloIteration& it = run.iterations[i];
    timeline.push_back({{"total_ns", it.total_ns}, {"pack_start_ns", it.pack_start_ns}, {"pack_end_ns", it.pack_end_ns},
                        {"copy_end_ns", it.copy_end_ns}, {"send_ns", it.send_ns}, {"recv_ns", it.recv_ns},
                        {"unpack_start_ns", it.unpack_start_ns}, {"unpack_end_ns", it.unpack_end_ns}});
  }
  Json iteration = summary_json(totals);
  if (!iteration.is_null()) iteration["samples"] = totals;
  Json slowest = summary_json(slowest_rank_ns);
  if (!slowest.is_null()) slowest["samples"] = slowest_rank_ns;
  const HaloModelInputs in = model_inputs(run, layout);
  const bool intact = run.mismatched_words == 0 && run.timeouts == 0;
  const HaloSetup& s = run.setup;
  const bool baseline = s.variant == HaloVariant::baseline;
  return {{"record", "halo"},
          {"probe", "halo"},
          {"variant", to_string(s.variant)},
          {"setup", s.label()},
          {"layout", layout.source},
          {"cube", layout.cube},
          {"peers", layout.cube ? Json(to_string(layout.peers)) : Json(nullptr)},
          {"send", s.blocking_send ? "send" : "isend"},
          {"receive_wait", baseline ? (s.testany ? "testany" : "waitall") : "testany"},
          {"signal", baseline ? Json(nullptr) : Json(to_string(s.signal))},
          {"staging", to_string(s.staging)},
          {"threads_per_block", s.threads_per_block},
          {"poll_pause_ns", baseline ? Json(nullptr) : Json(s.poll_pause_ns)},
          {"launch", {{"blocks", run.launch.blocks}, {"threads_per_block", run.launch.threads_per_block}}},
          {"stacked_long_bytes", run.long_bytes ? Json(run.long_bytes) : Json(nullptr)},
          {"messages_sent", layout.sends.size()},
          {"bytes_sent", layout.send_bytes()},
          {"warmup", config.warmup},
          {"n", run.iterations.size()},
          {"iteration_ns", iteration},
          {"slowest_rank_iteration_ns", slowest},
          {"pack_smallest_ns", in.pack_smallest_ns},
          {"unpack_largest_ns", in.unpack_largest_ns},
          {"pack", per_message(layout.sends, run.pack_device_ns, true)},
          {"unpack", per_message(layout.recvs, run.unpack_device_ns, false)},
          {"payload", {{"check", intact ? "intact" : "mismatch"}, {"mismatched_words", run.mismatched_words},
                       {"unpack_timeouts", run.timeouts}}},
          {"timeline", {{"relative_to", "iteration start (after its barrier)"}, {"kept", config.timeline},
                        {"iteration_index", kept}, {"iterations", timeline},
                        {"clock_sync", {{"samples", run.clock.samples_total}, {"used", run.clock.samples_used},
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
    const LowerBound b = lower_bound(in.pack_smallest_ns * 1e-9, comm_s, in.unpack_largest_ns * 1e-9);
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

// The thesis's comparison: each setup against the fastest baseline with the
// same send mode and block size, on the same layout.
void print_halo_table(std::FILE* out, const std::vector<Json>& records) {
  auto rank0_halo = [](const Json& r) {
    return r.value("record", "") == "halo" && r.value("rank", 0) == 0 && !r["iteration_ns"].is_null();
  };
  auto peer_key = [](const Json& r) {
    return short_layout(r) + "|" + r["send"].get<std::string>() + "|" + std::to_string(r.value("threads_per_block", 0));
  };
  std::map<std::string, double> best_baseline, bound;
  for (const Json& r : records) {
    if (r.value("record", "") == "halo_model" && r.value("rank", 0) == 0)
      for (const auto& [setup, b] : r["lower_bound_ns"].items()) bound[short_layout(r) + "|" + setup] = b;
    if (rank0_halo(r) && r["variant"] == "baseline") {
      const double median = r["iteration_ns"]["median"];
      auto [it, fresh] = best_baseline.emplace(peer_key(r), median);
      if (!fresh) it->second = std::min(it->second, median);
    }
  }
  std::fprintf(out, "# hetprobe halo: per-iteration time of rank 0 (and of the slowest rank), us: median (p10, p90)\n");
  std::fprintf(out, "%-12s %-14s %-5s %-8s %-6s %7s %6s %10s %10s %10s %10s %8s %10s  %s\n", "layout", "variant",
               "send", "wait/sig", "stage", "threads", "pause", "median", "p10", "p90", "slowest", "vs_base", "model_lb", "payload");
  for (const Json& r : records) {
    if (!rank0_halo(r)) continue;
    const std::string layout = short_layout(r), variant = r["variant"];
    const double median = r["iteration_ns"]["median"];
    const auto b = best_baseline.find(peer_key(r));
    const auto lb = bound.find(layout + "|" + r.value("setup", variant));
    const std::string how = variant == "baseline" ? r["receive_wait"].get<std::string>() : r.value("signal", "");
    const std::string pause = r.value("poll_pause_ns", Json()).is_null() ? "-" : r["poll_pause_ns"].dump();
    std::fprintf(out, "%-12.12s %-14s %-5s %-8s %-6s %7d %6s %10.1f %10.1f %10.1f %10.1f %8s %10s  %s\n",
                 layout.c_str(), variant.c_str(), r["send"].get<std::string>().c_str(), how.c_str(),
                 r.value("staging", "").c_str(), r.value("threads_per_block", 0), pause.c_str(), median / 1e3, r["iteration_ns"]["p10"].get<double>() / 1e3,
                 r["iteration_ns"]["p90"].get<double>() / 1e3,
                 r["slowest_rank_iteration_ns"].is_null() ? 0.0 : r["slowest_rank_iteration_ns"]["median"].get<double>() / 1e3,
                 b == best_baseline.end() ? "-" : std::to_string(b->second / median).substr(0, 5).c_str(),
                 lb == bound.end() ? "-" : std::to_string(lb->second / 1e3).substr(0, 7).c_str(),
                 r["payload"]["check"].get<std::string>().c_str());
  }
  std::fprintf(out, "# vs_base: the fastest baseline's median (same layout, send mode and threads) / this median "
                    "(> 1: faster); pause: ns between a GPU unpack's flag reads; model_lb: paper Eq. 1 lower bound, us\n");
}

}  // namespace hetprobe
