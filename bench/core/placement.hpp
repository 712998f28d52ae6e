// Where a rank runs: its node-local index (MPI shared-memory communicator),
// its device (round robin over the node's devices unless --gpu says), and
// its CPUs and memory bound near that GPU (or away from it, or as given, or
// not at all). A launcher's tighter binding inside the chosen CPUs is kept.
// What the OS actually granted is read back, not assumed.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/enum_table.hpp"
#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"
#include "probes/device/device.hpp"
#include "topology/topology.hpp"

namespace hetprobe {

// --bind: the NUMA node(s) nearest the rank's GPU, the others, no binding,
// or the CPUs of a list.
enum class BindKind { near_gpu, far_gpu, none, cpus };
inline constexpr EnumTable<BindKind, 3> kBindKindNames{"bind policy",
                                                       {{{BindKind::near_gpu, "near-gpu"},
                                                         {BindKind::far_gpu, "far-gpu"},
                                                         {BindKind::none, "none"}}}};
struct BindPolicy {
  BindKind kind = BindKind::near_gpu;
  std::string cpus;  // BindKind::cpus: a cpu list like 0-7,16 (checked against the node when bound)
  std::string text() const { return kind == BindKind::cpus ? cpus : kBindKindNames.name(kind); }
};
// A policy's name, or a cpu list (it starts with a digit); anything else is a
// usage Error naming both.
BindPolicy parse_bind(const std::string& text);

struct PlacementOptions {
  std::string backend = "auto";
  std::optional<int> gpu;  // none: node-local rank modulo the node's devices
  BindPolicy bind;
};

struct RankPlacement {
  int local_rank = 0, local_size = 1;
  std::unique_ptr<Device> device;
  std::string device_choice;     // why this backend and device
  BindPolicy bind;               // the policy asked for
  std::string launcher_cpuset;   // the binding the process started with (mpirun's, srun's)
  std::string requested_cpuset;  // what was bound; "" when not bound
  std::string note;              // why not bound, when not
};

// Collective over mpi.comm. Opens the rank's device and binds the process.
// Throws a usage Error for a bad --bind or one this node cannot honour.
RankPlacement place_rank(const MpiContext& mpi, const PlacementOptions& options, const Topology& topology);

// The placement as read back now: bound cpus and their NUMA nodes, memory
// binding, the GPU's PCI address and NUMA nodes, and, given a buffer, the
// NUMA nodes its pages are on.
Json placement_json(const RankPlacement& placement, const Topology& topology, const void* buffer = nullptr,
                    std::size_t bytes = 0);

}  // namespace hetprobe
