#include "bench/gpus/gpus.hpp"

#include <algorithm>
#include <memory>
#include <optional>

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/stats.hpp"
#include "bench/core/rounds.hpp"
#include "bench/gpus/node_verdict.hpp"
#include "bench/protocols/flag_exchange.hpp"
#include "probes/launch/launch_engine.hpp"
#include "probes/load/load_engine.hpp"
#include "probes/signal/signal_engine.hpp"

namespace hetprobe {

Json GpusConfig::to_json() const {
  return Json{{"rounds", rounds},
              {"bytes", bytes},
              {"reps", reps},
              {"exchanges", exchanges},
              {"launch_samples", launch_samples},
              {"warmup", warmup},
              {"seed", seed},
              {"phase", to_string(phase)},
              {"tolerance", tolerance},
              {"timeout_s", timeout_s}};
}

namespace {

// What a rank keeps for the run: its engines, made once.
struct Engines {
  std::unique_ptr<SignalEngine> signals;
  std::unique_ptr<LoadEngine> loads;
  std::unique_ptr<LaunchEngine> launches;  // null where the device times no launch + device sync
};

Engines make_engines(Device& device) {
  Engines e{device.make_signal_engine(), device.make_load_engine(), nullptr};
  const auto& mechanisms = device.info().launch_mechanisms;
  if (std::find(mechanisms.begin(), mechanisms.end(), LaunchMechanism::launch_device_sync) != mechanisms.end())
    e.launches = device.make_launch_engine();
  return e;
}

double median_of(const std::vector<double>& v) { return summarize(v).median; }

// One visit: every metric of gpu_metrics.hpp, in its order; null where the
// device cannot time it. A fresh pinned buffer and fresh flags each time.
Json measure_visit(const GpusConfig& c, Device& device, const HostClock& clock, Engines& e) {
  Json metrics = Json::object();
  metrics["roundtrip_ns"] = median_of(cpu_gpu_roundtrip_ns(device, *e.signals, clock,
                                                           {MemoryOrder::volatile_access, MemoryOrder::relaxed},
                                                           c.exchanges, c.warmup, c.timeout_s));
  metrics["launch_sync_ns"] = nullptr;
  if (e.launches) {
    const MechanismSamples s = e.launches->time(LaunchMechanism::launch_device_sync,
                                                {c.launch_samples, c.warmup, c.timeout_s, &clock});
    if (s.skipped.empty() && !s.ticks.empty()) {
      std::vector<double> ns;
      for (std::uint64_t t : s.ticks) ns.push_back(clock.to_ns(t));
      metrics["launch_sync_ns"] = median_of(ns);
    }
  }
  PinnedBuffer buf = device.alloc_pinned(c.bytes);
  for (const auto& [key, kind] :
       {std::pair{"write_gbs", LoadKind::write}, std::pair{"read_gbs", LoadKind::read},
        std::pair{"copy_d2h_gbs", LoadKind::copy_d2h}, std::pair{"copy_h2d_gbs", LoadKind::copy_h2d}}) {
    (void)e.loads->time_plain(kind, buf.device(), c.bytes);  // first touch of this buffer
    std::vector<double> gbs;
    for (int i = 0; i < c.reps; ++i)
      gbs.push_back(static_cast<double>(c.bytes) / e.loads->time_plain(kind, buf.device(), c.bytes) * 1e-9);
    metrics[key] = median_of(gbs);
  }
  return metrics;
}

}  // namespace

void run_gpus(const GpusConfig& c, Device& device, const HostClock& clock, const MpiContext& mpi,
              const RecordSink& sink) {
  Engines engines = make_engines(device);
  (void)measure_visit(c, device, clock, engines);  // warm-up: module load, first allocations
  // Rank 0: this launch's records as a file would hold them, for its own verdict: each rank's
  // host and device as its header names them (so that the verdict sees ranks that share one).
  const DeviceInfo& info = device.info();
  const Json me{{"host", mpi.host},
                {"device",
                 {{"ordinal", info.ordinal},
                  {"name", info.name},
                  {"pci_bus_id", info.pci_bus_id.empty() ? Json(nullptr) : Json(info.pci_bus_id)}}}};
  Json ranks = Json::array();
  const std::vector<std::string> each = gather_strings(mpi, me.dump());
  for (std::size_t r = 0; r < each.size(); ++r) {
    ranks.push_back(Json::parse(each[r]));
    ranks.back()["rank"] = r;
  }
  interruptible_barrier(mpi);
  std::vector<ResultsFile> written(1);
  written.front().records.push_back(
      Json{{"record", "header"}, {"probe", "gpus"}, {"host", mpi.host}, {"backend", info.backend}, {"ranks", ranks}});
  for (int round = 0; round < c.rounds; ++round) {
    const std::vector<std::size_t> order = round_order(c.seed, static_cast<std::uint64_t>(c.phase), round,
                                                       static_cast<std::size_t>(mpi.size));
    Json mine;
    for (std::size_t position = 0; position < order.size(); ++position) {
      if (static_cast<int>(order[position]) == mpi.rank)
        mine = Json{{"record", "gpu_round"},
                    {"probe", "gpus"},
                    {"phase", to_string(c.phase)},
                    {"round", round},
                    {"position", position},
                    {"gpu", mpi.rank},
                    {"pci_bus_id", device.info().pci_bus_id.empty() ? Json(nullptr) : Json(device.info().pci_bus_id)},
                    {"metrics", measure_visit(c, device, clock, engines)}};
      interruptible_barrier(mpi);  // the others wait, asleep, for this visit to end
    }
    const std::vector<std::string> all = gather_strings(mpi, mine.dump());
    if (mpi.rank != 0) continue;
    std::vector<Json> visits;
    for (const std::string& text : all) visits.push_back(Json::parse(text));
    std::sort(visits.begin(), visits.end(),
              [](const Json& a, const Json& b) { return a.at("position") < b.at("position"); });
    for (Json& v : visits) {
      sink(v);
      written.front().records.push_back(std::move(v));
    }
  }
  if (mpi.rank != 0) return;
  // The verdict of this launch alone; a run's (characterize, check) pools its launches.
  sink(Json{{"record", "gpus_verdict"}, {"probe", "gpus"}, {"verdict", node_verdict(written, c.tolerance)}});
}

}  // namespace hetprobe
