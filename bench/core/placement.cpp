#include "bench/core/placement.hpp"

#include <cctype>
#include <optional>

#include "base/errors.hpp"

namespace hetprobe {

namespace {

// --gpu if given, else the node-local rank's device, wrapping round when
// ranks outnumber devices.
std::unique_ptr<Device> open_rank_device(const PlacementOptions& o, int local_rank, std::string& why) {
  if (o.gpu) return open_device(o.backend, *o.gpu, &why);
  auto first = open_device(o.backend, 0, &why);
  if (local_rank == 0) return first;
  const std::string backend = first->info().backend;
  const int ordinal = local_rank % std::max(1, device_count(backend));
  if (ordinal == 0) return first;
  first.reset();
  why += "; node-local rank " + std::to_string(local_rank) + " takes device " + std::to_string(ordinal);
  return open_device(backend, ordinal);
}

std::optional<PciAddress> gpu_address(const Device& d) {
  return d.info().pci_bus_id.empty() ? std::nullopt : PciAddress::parse(d.info().pci_bus_id);
}

}  // namespace

BindPolicy parse_bind(const std::string& text) {
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text.front()))) return {BindKind::cpus, text};
  return {kBindKindNames.parse_in(text, kBindKindNames.valid_names() + ", or a cpu list like 0-7,16"), ""};
}

RankPlacement place_rank(const MpiContext& mpi, const PlacementOptions& o, const Topology& topo) {
  RankPlacement p;
  p.local_rank = mpi.node_rank;
  p.local_size = mpi.node_size;
  p.bind = o.bind;
  p.device = open_rank_device(o, p.local_rank, p.device_choice);
  const auto gpu = gpu_address(*p.device);
  p.launcher_cpuset = topo.bound_cpuset();
  if (o.bind.kind == BindKind::none) {
    p.note = "--bind none";
  } else if (o.bind.kind == BindKind::near_gpu || o.bind.kind == BindKind::far_gpu) {
    const bool near = o.bind.kind == BindKind::near_gpu;
    std::string why_not;
    if (!gpu) why_not = "the " + p.device->info().backend + " backend has no GPU to be near or far from";
    else {
      try {
        p.requested_cpuset = near ? topo.cpuset_near(*gpu) : topo.cpuset_far(*gpu);
      } catch (const Error& e) {
        if (!near) throw;  // far-gpu asked for something this node lacks
        why_not = e.what();
      }
    }
    if (!why_not.empty()) {
      if (!near) throw usage_error("--bind far-gpu: " + why_not);
      p.note = "not bound: " + why_not;  // the default must not stop a run
    }
  } else {
    (void)topo.numa_nodes_of(o.bind.cpus);  // a usage Error for a bad list
    p.requested_cpuset = o.bind.cpus;
  }
  // A launcher's tighter binding (mpirun's per-core default) is kept where it
  // lies inside a policy's CPUs; only a binding outside them is replaced. A
  // cpu list given is bound as given.
  if (!p.requested_cpuset.empty() && o.bind.kind != BindKind::cpus)
    p.requested_cpuset = topo.intersect_or(p.requested_cpuset, p.launcher_cpuset);
  if (!p.requested_cpuset.empty()) topo.bind(p.requested_cpuset);
  return p;
}

Json placement_json(const RankPlacement& p, const Topology& topo, const void* buffer, std::size_t bytes) {
  const std::string bound = topo.bound_cpuset();
  const auto gpu = gpu_address(*p.device);
  Json gpu_numa = nullptr;
  if (gpu) try {
      gpu_numa = topo.numa_nodes_of(topo.cpuset_near(*gpu));
    } catch (const Error&) {
    }
  Json j{{"local_rank", p.local_rank},
         {"local_size", p.local_size},
         {"device_ordinal", p.device->info().ordinal},
         {"pci_bus_id", gpu ? Json(gpu->str()) : Json(nullptr)},
         {"gpu_numa_nodes", gpu_numa},
         {"bind", p.bind.text()},
         {"launcher_cpuset", p.launcher_cpuset},
         {"requested_cpuset", p.requested_cpuset.empty() ? Json(nullptr) : Json(p.requested_cpuset)},
         {"note", p.note.empty() ? Json(nullptr) : Json(p.note)},
         {"cpuset", bound},
         {"cpu_numa_nodes", bound.empty() ? Json(nullptr) : Json(topo.numa_nodes_of(bound))},
         {"membind_numa_nodes", topo.membind_nodes()}};
  if (buffer != nullptr) j["buffer_numa_nodes"] = topo.memory_location(buffer, bytes);
  return j;
}

}  // namespace hetprobe
