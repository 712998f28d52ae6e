// What a results header needs to know about the node and the calling
// process, read from the OS (not assumed). hwloc-based discovery of sockets,
// NUMA nodes, caches and PCI locality grows here (see DESIGN.md).
#pragma once

#include <string>
#include <vector>

namespace hetprobe {

struct NodeInfo {
  std::string hostname;
  std::string cpu_model;
  int online_cpus = 0;
  long page_size_bytes = 0;
  std::string transparent_hugepages;  // the selected mode, e.g. "madvise"; "" if unreadable
  std::string kernel_release;
};

NodeInfo read_node_info();

// CPUs the calling thread may run on, as a list like "0-3,8,10-11",
// read back with sched_getaffinity.
std::string cpu_affinity_list();

// Compact "0-3,8" form of the CPUs whose flag is set.
std::string format_cpu_list(const std::vector<bool>& cpus);

}  // namespace hetprobe
