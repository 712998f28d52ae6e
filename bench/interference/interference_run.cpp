#include "bench/interference/interference_run.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "base/interrupt.hpp"
#include "bench/core/results_report.hpp"
#include "bench/interference/interference_resume.hpp"
#include "bench/load/host_stream.hpp"

namespace hetprobe {

namespace {

// Whether this rank runs loads (and so holds a LoadSet).
bool loads_on_rank(const InterferenceConfig& c, int rank) {
  const bool any_load = std::any_of(c.loads.begin(), c.loads.end(), [](LoadKind k) { return k != LoadKind::none; });
  return gpu_on_rank(c.writer, rank) && !c.paper && any_load && c.max_gpus() > 0;
}

// Rank 0's host memory reference (STREAM on the sender's NUMA node), first,
// while the other rank sleeps in a barrier so that it takes no core from it.
void host_memory_reference(const InterferenceRun& run, const MpiContext& mpi, const RecordSink& sink) {
  if (mpi.rank == 0) {
    const Topology& topo = *run.topo;
    const std::string cpus = topo.bound_cpuset();
    const std::vector<int> numa = cpus.empty() ? std::vector<int>{0} : topo.numa_nodes_of(cpus);
    const HostStreamResult r = measure_host_stream(topo, numa, auto_stream_array_bytes(topo.describe()), 5);
    sink(host_stream_record("interference", r));  // its progress line says what it measured
  }
  interruptible_barrier(mpi);
}

// Whether the sender's GPU needs a load buffer of its own (an OWN layout).
bool own_load_buffer(const InterferenceConfig& c) {
  return std::any_of(c.layouts.begin(), c.layouts.end(), load_in_own_allocation);
}

}  // namespace

std::uint64_t max_load_bytes(const InterferenceConfig& c) {
  std::uint64_t buffer = 0;
  for (std::uint64_t n : c.sizes) buffer = std::max(buffer, c.load_bytes_for(n));
  return buffer;
}

std::uint64_t rank_host_bytes(const InterferenceConfig& c, int rank, const Topology& topo) {
  std::uint64_t bytes = interference_allocation_bytes(c) + 2 * c.sizes.back();  // sizes are sorted
  if (loads_on_rank(c, rank))
    bytes += static_cast<std::uint64_t>(c.max_gpus() - (own_load_buffer(c) ? 0 : 1)) * max_load_bytes(c);
  if (rank == 0 && c.host_stream) bytes += 3 * auto_stream_array_bytes(topo.describe());
  if (rank == 0 && c.gap.kind == GapKind::sweep) bytes += c.gap.bytes;  // the sender's --gap sweep:SIZE buffer
  return bytes;
}

std::string done_to_string(const std::set<PointKey>& done) {
  Json j = Json::array();
  for (const auto& k : done)
    j.push_back({k.size, static_cast<int>(k.layout), static_cast<int>(k.access), static_cast<int>(k.load), k.gpus,
                 k.rate ? Json(k.rate->label) : Json(nullptr)});
  return j.dump();
}

std::set<PointKey> done_from_string(const std::string& s) {
  std::set<PointKey> done;
  if (s.empty()) return done;  // a new file
  for (const auto& k : Json::parse(s))
    done.insert({k[0].get<std::uint64_t>(), static_cast<Layout>(k[1].get<int>()), static_cast<Access>(k[2].get<int>()),
                 static_cast<LoadKind>(k[3].get<int>()), k[4].get<int>(),
                 k[5].is_null() ? std::nullopt : std::optional(parse_load_rate(k[5].get<std::string>()))});
  return done;
}

const PinnedBuffer* allocate(InterferenceRun& run, const InterferenceConfig& c, Device& device, const Topology& topo,
                             const MpiContext& mpi) {
  run.topo = &topo;
  run.memory = device.alloc_pinned(interference_allocation_bytes(c));
  if (loads_on_rank(c, mpi.rank))
    run.loads = std::make_unique<LoadSet>(device, c.load_devices, c.max_gpus(), max_load_bytes(c), topo,
                                          topo.bound_cpuset(), own_load_buffer(c));
  return &run.memory;
}

void measure(InterferenceRun& run, const InterferenceConfig& config, Device& device, const HostClock& clock,
             const MpiContext& mpi, const RecordSink& sink) {
  if (config.host_stream) host_memory_reference(run, mpi, sink);
  run_interference(config, device, run.memory, run.loads.get(), mpi, clock, run.done,
                   [&](const PointData& p, const PointData* ssb) { sink(point_record(config, p, ssb, run.path)); });
}

std::string interference_record_label(const Json& record) {
  const RecordRef r{record, "record"};
  char text[192];
  if (record_kind(r) == "host_memory") {
    const Json* samples = find_field(r, "triad_gbs.samples");
    std::snprintf(text, sizeof text,
                  "host memory (STREAM, %d threads on NUMA node(s) of the sender): copy %.1f GB/s, triad %.1f GB/s "
                  "(best of %zu)",
                  field_or<int>(r, "threads", 0), field_or<double>(r, "best_copy_gbs", 0.0),
                  field_or<double>(r, "best_triad_gbs", 0.0), samples && samples->is_array() ? samples->size() : 0);
    return text;
  }
  if (record_kind(r) != "point") return record_kind(r);
  // Every field read with checked access: a record from an older file may lack the ratio and its interval.
  int n = std::snprintf(text, sizeof text, ": median %.3f us", field<double>(r, "send_time_ns.median") / 1e3);
  const Json* ratio = find_field(r, "ratio_to_ssb_median");
  const Json* ci = find_field(r, "ratio_to_ssb_ci95");
  if (ratio && ratio->is_number() && n > 0)
    n += std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), ", %.3fx SSB", ratio->get<double>());
  const std::optional<Interval> interval = ci ? interval_of(*ci) : std::nullopt;
  return describe(point_key(r)) + text + (interval ? " (95% CI " + interval_text(interval) + ")" : "");
}

}  // namespace hetprobe
