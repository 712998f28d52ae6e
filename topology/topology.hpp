// The node as hwloc sees it: packages, NUMA nodes with their memory, cores,
// PUs, caches, and the GPUs and NICs on PCI with the NUMA nodes and CPUs
// nearest them; and binding the calling process next to (or away from) one
// of them, with the binding read back from the OS, not assumed.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "topology/pci_link.hpp"

namespace hetprobe {

// A PCI address; parses "0000:17:00.0" and the runtime's "00000000:17:00.0".
struct PciAddress {
  unsigned domain = 0, bus = 0, dev = 0, func = 0;
  static std::optional<PciAddress> parse(const std::string& text);
  std::string str() const;  // "0000:17:00.0"
  auto operator<=>(const PciAddress&) const = default;
};

struct PciDevice {
  std::string kind;  // "gpu" (display or 3D controller) or "nic" (network or InfiniBand controller)
  PciAddress address;
  unsigned vendor_id = 0, device_id = 0, class_id = 0;
  std::string vendor, model;            // names where hwloc has them
  std::vector<std::string> os_devices;  // e.g. "cuda0", "mlx5_0", "ib0"
  std::vector<int> numa_nodes;          // nearest NUMA nodes (OS indexes)
  std::string cpuset;                   // CPUs nearest it, e.g. "16-31,48-63"
  double link_gbps = 0;                 // hwloc's PCI link speed, GB/s; 0 when unknown
  // GPUs: the link as sysfs says, where `hetprobe topo` read it (an idle
  // read); describe() leaves it empty, so results headers do not carry it.
  std::optional<PciLink> sysfs_link;
};

struct NumaNode {
  int os_index = 0;
  std::uint64_t memory_bytes = 0;
  std::string cpuset;
};

struct CacheLevel {
  std::string name;  // "L1d", "L1i", "L2", "L3"
  std::uint64_t size_bytes = 0;
  int count = 0;  // how many of them on the node
};

// Memory settings outside hwloc, read from /sys and /proc ("" when unreadable).
struct MemorySettings {
  long page_size_bytes = 0;
  std::string transparent_hugepages;
  long hugepages_2m = -1, hugepages_1g = -1;  // pages reserved; -1 when unreadable
  std::vector<std::string> iommu_devices;     // /sys/class/iommu entries
  std::string iommu_cmdline;                  // the kernel command line's iommu options
};

struct NodeTopology {
  std::string source;  // "this machine (hwloc)" or the XML file
  int packages = 0, numa_nodes = 0, cores = 0, pus = 0;
  std::vector<NumaNode> numa;
  std::vector<CacheLevel> caches;
  std::vector<PciDevice> gpus, nics;
  MemorySettings memory;
  nlohmann::ordered_json to_json() const;
  // The readable tree `hetprobe topo` prints, in the spirit of lstopo's console output.
  std::string tree() const;
};

MemorySettings read_memory_settings();

class Topology {
 public:
  // This machine, with PCI devices; or an hwloc XML file (throws a usage
  // Error naming the file when it cannot be read).
  static Topology discover();
  static Topology from_xml(const std::string& path);
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  ~Topology();

  NodeTopology describe() const;
  const std::string& source() const { return source_; }

  // CPUs nearest the PCI device; throws a usage Error if hwloc does not know it.
  std::string cpuset_near(const PciAddress& device) const;
  // CPUs of the NUMA nodes that are not nearest it; throws a usage Error on a
  // node with one NUMA node.
  std::string cpuset_far(const PciAddress& device) const;
  // `cpuset` ∩ `narrower` when that is not empty, else `cpuset` (cpu lists).
  std::string intersect_or(const std::string& cpuset, const std::string& narrower) const;
  // NUMA nodes whose CPUs intersect `cpuset` (a list like "0-3,8").
  std::vector<int> numa_nodes_of(const std::string& cpuset) const;
  // The CPUs of a list, one by one; every CPU of the node; the CPUs of NUMA nodes.
  std::vector<int> cpus_of(const std::string& cpuset) const;
  std::string all_cpus() const;
  std::string cpuset_of_numa(const std::vector<int>& nodes) const;
  // CPUs of `cpuset` that are not in `minus` (a list; "" when none are left).
  std::string cpuset_minus(const std::string& cpuset, const std::string& minus) const;

  // Binds the calling process to `cpuset` and the calling thread's memory
  // to the NUMA nodes of those CPUs. Throws a usage Error for a bad list or
  // CPUs this machine does not have; an Error of kind check if the OS refuses.
  void bind(const std::string& cpuset) const;
  // Binds the calling thread's memory to NUMA nodes (allocations it makes
  // next land there). Throws an Error of kind check if the OS refuses.
  void bind_memory(const std::vector<int>& nodes) const;
  // Gives the process back `cpuset` (the binding it had before bind()) and
  // the calling thread the default memory policy. Never throws: it runs in
  // clean-up paths; a refusal leaves the binding as it was.
  void unbind(const std::string& cpuset) const noexcept;
  // What the OS says now.
  std::string bound_cpuset() const;
  std::vector<int> membind_nodes() const;
  // NUMA nodes holding the pages of [p, p + bytes) (touched pages only).
  std::vector<int> memory_location(const void* p, std::size_t bytes) const;

 public:
  struct Impl;  // hwloc's handle; public so the .cpp's helpers can build one

 private:
  Topology(std::unique_ptr<Impl> impl, std::string source, bool live);
  std::unique_ptr<Impl> impl_;
  std::string source_;
  bool live_ = false;  // this machine, not a file: binding and /sys apply
};

}  // namespace hetprobe
