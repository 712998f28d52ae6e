// The host's own memory bandwidth, STREAM-style (McCalpin): copy (c = a) and
// triad (a = b + q*c) over arrays far larger than the caches, by one thread on
// every CPU of the given NUMA nodes, each touching and timing its own slice.
// The interference report compares the GPUs' traffic with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/core/results.hpp"
#include "topology/topology.hpp"

namespace hetprobe {

struct HostStreamResult {
  std::vector<int> numa_nodes;
  std::string cpus;
  int threads = 0;
  std::uint64_t array_bytes = 0;
  std::vector<double> copy_gbs, triad_gbs;  // one per repetition, 10^9 B/s as STREAM counts bytes
};

// Arrays of four times the node's last-level cache per NUMA node, at least 64 MiB, at most 1 GiB.
std::uint64_t auto_stream_array_bytes(const NodeTopology& node);

// Threads bind to each CPU of `numa_nodes` (outside the process's own binding
// if need be) and their memory to those nodes; `reps` timed repetitions of each kernel.
HostStreamResult measure_host_stream(const Topology& topology, const std::vector<int>& numa_nodes,
                                     std::uint64_t array_bytes, int reps);

// The host_memory record (docs/results-schema.md).
Json host_stream_record(const std::string& probe, const HostStreamResult& result);

}  // namespace hetprobe
