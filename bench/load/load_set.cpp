#include "bench/load/load_set.hpp"

#include <algorithm>
#include <utility>

#include "base/errors.hpp"
#include "bench/protocols/clock_sync.hpp"

namespace hetprobe {

namespace {

constexpr int kSyncSamples = 16;  // per GPU, before and after a point's loads

// Device ticks at a host-clock time (the mapping's inverse, in integers where it counts).
std::uint64_t ticks_at(const ClockMapping& m, double host_ns) {
  const double delta = (host_ns - m.host_ref_ns) / m.ns_per_tick;
  return delta >= 0 ? m.device_ref + static_cast<std::uint64_t>(std::llround(delta))
                    : m.device_ref - static_cast<std::uint64_t>(std::llround(-delta));
}

}  // namespace

LoadSet::LoadSet(Device& own, const std::vector<int>& order, int max_gpus, std::uint64_t buffer_bytes,
                 const Topology& topo, const std::string& rank_cpuset, bool own_gets_buffer) {
  if (order.empty() || order.front() != own.info().ordinal)
    throw Error(ErrorKind::check, "a load set starts with the rank's own GPU");
  if (max_gpus > kMaxLoadGpus)
    throw usage_error("--load-gpus: at most " + std::to_string(kMaxLoadGpus) + " GPUs are loaded at once");
  const std::vector<int> rank_numa = rank_cpuset.empty() ? std::vector<int>{} : topo.numa_nodes_of(rank_cpuset);
  for (int i = 0; i < max_gpus && i < static_cast<int>(order.size()); ++i) {
    LoadGpu g;
    g.ordinal = order[i];
    if (i == 0) {
      g.device = &own;
    } else {
      g.owned = open_device(own.info().backend, g.ordinal);
      g.device = g.owned.get();
    }
    const std::string bus = g.device->info().pci_bus_id;
    const auto pci = bus.empty() ? std::nullopt : PciAddress::parse(bus);
    std::string near = topo.all_cpus();
    std::vector<int> numa;
    if (pci) try {
        near = topo.cpuset_near(*pci);
        numa = topo.numa_nodes_of(near);
      } catch (const Error&) {  // hwloc does not know it: no placement, anywhere will do
      }
    if (i > 0 || own_gets_buffer) {
      // The buffer lands on the GPU's NUMA node; the rank's own binding is restored after.
      if (!numa.empty()) topo.bind_memory(numa);
      g.buffer = g.device->alloc_pinned(buffer_bytes);
      if (!numa.empty() && !rank_numa.empty()) topo.bind_memory(rank_numa);
    }
    // Helper threads near the GPU but off the rank's CPUs (they time the send), where that leaves any.
    std::string helpers = topo.cpuset_minus(near, rank_cpuset);
    if (helpers.empty()) helpers = topo.cpuset_minus(topo.all_cpus(), rank_cpuset);
    if (!helpers.empty()) g.helper_cpus = topo.cpus_of(helpers);
    g.placement = Json{{"ordinal", g.ordinal},
                       {"pci_bus_id", pci ? Json(pci->str()) : Json(nullptr)},
                       {"gpu_numa_nodes", numa.empty() ? Json(nullptr) : Json(numa)},
                       {"buffer", "its own"},
                       {"buffer_numa_nodes",
                        g.buffer.host() ? Json(topo.memory_location(g.buffer.host(), g.buffer.size())) : Json(nullptr)},
                       {"helper_cpus", helpers.empty() ? Json(nullptr) : Json(helpers)}};
    if (g.buffer.host()) g.own_placement = g.placement;
    if (i == 0) {  // its load lands in the probe's allocation but for OWN
      g.placement["buffer"] = "the probe's allocation";
      g.placement["buffer_numa_nodes"] = nullptr;
    }
    g.engine = g.device->make_load_engine();
    gpus_.push_back(std::move(g));
  }
  sync_flags_.resize(gpus_.size());
}

LoadSet::~LoadSet() {
  sync_flags_.clear();
  for (LoadGpu& g : gpus_) g.engine.reset();  // each engine before its device
}

std::byte* LoadSet::target(int i, std::byte* own_target, bool in_own_buffer) const {
  const LoadGpu& g = gpus_.at(static_cast<std::size_t>(i));
  if (i > 0 || in_own_buffer) {
    if (!g.buffer.host())
      throw Error(ErrorKind::check, "GPU " + std::to_string(g.ordinal) + " has no buffer of its own");
    return g.buffer.device();
  }
  return own_target;
}

double LoadSet::full_rate_gbs(int i, LoadKind kind, Access access, std::byte* target, std::uint64_t bytes,
                              double timeout_s) {
  LoadGpu& g = gpus_.at(static_cast<std::size_t>(i));
  const auto key = std::make_pair(kind, load_uses_threads(kind) ? access : Access::stream);
  if (auto it = g.full_gbs.find(key); it != g.full_gbs.end()) return it->second;
  LoadTask t;
  t.kind = kind;
  t.access = access;
  t.target = target;
  t.target_bytes = bytes;
  t.epoch = ++epoch_;
  t.timeout_s = timeout_s;
  t.helper_cpus = g.helper_cpus;
  const double gbs = run_for_rate_gbs(*g.engine, t, 0.05);
  if (!(gbs > 0)) throw Error(ErrorKind::check, std::string("the ") + to_string(kind) + " load moved nothing in 50 ms");
  return g.full_gbs[key] = gbs;
}

void LoadSet::sync(int n, const HostClock& clock, double timeout_s, std::vector<std::vector<ClockSample>>& into) {
  into.resize(std::max<std::size_t>(into.size(), static_cast<std::size_t>(n)));
  for (int i = 0; i < n; ++i) {
    LoadGpu& g = gpus_.at(static_cast<std::size_t>(i));
    if (!sync_flags_[i].host()) sync_flags_[i] = g.device->alloc_pinned(2 * 128);
    if (!g.pinger) g.pinger = g.device->make_signal_engine();
    const auto burst = sync_batch(*g.device, *g.pinger, clock, kSyncSamples, MemoryOrder::fence, timeout_s,
                                  &sync_flags_[i]);
    into[i].insert(into[i].end(), burst.begin(), burst.end());
  }
}

void LoadSet::start(std::vector<LoadTask> tasks, double timeout_s) {
  if (tasks.size() > gpus_.size()) throw Error(ErrorKind::check, "more load tasks than GPUs in the set");
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    tasks[i].epoch = ++epoch_;
    tasks[i].helper_cpus = gpus_[i].helper_cpus;
    gpus_[i].engine->start(tasks[i]);
    running_ = i + 1;
  }
  for (std::size_t i = 0; i < tasks.size(); ++i) gpus_[i].engine->wait_ready(timeout_s);
}

void LoadSet::keep_alive() {
  for (std::size_t i = 0; i < running_; ++i) gpus_[i].engine->keep_alive();
}

std::vector<LoadOutcome> LoadSet::stop() {
  for (std::size_t i = 0; i < running_; ++i) gpus_[i].engine->request_stop();
  std::vector<LoadOutcome> out;
  const std::size_t n = std::exchange(running_, 0);
  for (std::size_t i = 0; i < n; ++i) out.push_back(gpus_[i].engine->join());
  return out;
}

std::optional<double> LoadSet::bytes_between(int i, const ClockMapping& m, double from_ns, double to_ns) const {
  return gpus_.at(static_cast<std::size_t>(i)).engine->bytes_between(ticks_at(m, from_ns), ticks_at(m, to_ns));
}

}  // namespace hetprobe
