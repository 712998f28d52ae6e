// Where a rank runs: its node-local index (MPI shared-memory communicator),
// its device (round robin over the node's devices unless --gpu says), and
// its CPUs and memory bound near that GPU (or away from it, or as given, or
// not at all). A launcher's tighter binding inside the chosen CPUs is kept.
// What the OS actually granted is read back, not assumed.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"
#include "probes/device/device.hpp"
#include "topology/topology.hpp"

namespace hetprobe {

struct PlacementOptions {
  std::string backend = "auto";
  std::optional<int> gpu;         // none: node-local rank modulo the node's devices
  std::string bind = "near-gpu";  // near-gpu, far-gpu, none, or a cpu list like 0-7,16
};

struct RankPlacement {
  int local_rank = 0, local_size = 1;
  std::unique_ptr<Device> device;
  std::string device_choice;     // why this backend and device
  std::string bind;              // the policy asked for
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
