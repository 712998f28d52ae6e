// `hetprobe topo`: the node as hwloc sees it (packages, NUMA nodes, caches,
// GPUs and NICs with the CPUs nearest them, each GPU's PCIe link from sysfs),
// each GPU runtime index matched to its PCI device, as a tree or JSON; or a
// saved hwloc XML file.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/errors.hpp"
#include "bench/cli/command.hpp"
#include "probes/device/device.hpp"
#include "topology/pci_link.hpp"
#include "topology/topology.hpp"

namespace hetprobe::cli {

namespace {

struct Options {
  bool json = false;
  std::string topology_file;
};

// Each compiled GPU backend's devices, by runtime index, with their PCI
// address and whether hwloc knows that address.
nlohmann::ordered_json runtime_devices(const NodeTopology& node) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& b : compiled_backends()) {
    if (b.name == "host") continue;
    const int n = b.count().devices;
    for (int i = 0; i < n; ++i) {
      const auto address = PciAddress::parse(b.pci_bus_id(i));
      const PciDevice* match = nullptr;
      for (const PciDevice& g : node.gpus)
        if (address && g.address == *address) match = &g;
      out.push_back({{"backend", b.name},
                     {"ordinal", i},
                     {"pci_bus_id", address ? address->str() : b.pci_bus_id(i)},
                     {"numa_nodes",
                      match ? nlohmann::ordered_json(match->numa_nodes) : nlohmann::ordered_json(nullptr)},
                     {"cpuset", match ? nlohmann::ordered_json(match->cpuset) : nlohmann::ordered_json(nullptr)}});
    }
  }
  return out;
}

// Each GPU's PCIe link from sysfs, read now (idle: topo moves no data): this
// machine's; for a topology file only where HETPROBE_SYSFS_ROOT names a sysfs
// tree (the file's GPUs are not this machine's).
void read_sysfs_links(NodeTopology& node, const std::string& topology_file) {
  if (!topology_file.empty() && !sysfs_root_overridden()) return;
  for (PciDevice& g : node.gpus) g.sysfs_link = read_pci_link(g.address.str());
}

// This machine (empty `file`), or a saved hwloc XML file: a regular file,
// since hwloc would read a device such as /dev/zero without end.
Topology topology_of(const std::string& file) {
  if (file.empty()) return Topology::discover();
  std::error_code ec;
  const auto type = std::filesystem::status(file, ec).type();
  if (type != std::filesystem::file_type::not_found && type != std::filesystem::file_type::regular)
    throw usage_error("--topology-file " + file + ": not a regular file (expected lstopo --of xml output)");
  return Topology::from_xml(file);
}

int run(const Options& o) {
  if (o.json) {
    // Replace, not throw: a name hwloc or sysfs holds may not be valid UTF-8.
    const auto text = topology_report(o.topology_file).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    std::printf("%s\n", text.c_str());
    return 0;
  }
  const Topology topo = topology_of(o.topology_file);
  NodeTopology node = topo.describe();
  read_sysfs_links(node, o.topology_file);
  std::printf("%s", node.tree().c_str());
  // Runtime indexes belong to this machine, not to a saved file's.
  const auto devices = o.topology_file.empty() ? runtime_devices(node) : nlohmann::ordered_json::array();
  for (const auto& d : devices)
    std::printf("  %s device %d = PCI %s%s\n", d["backend"].get<std::string>().c_str(), d["ordinal"].get<int>(),
                d["pci_bus_id"].get<std::string>().c_str(),
                d["cpuset"].is_null() ? " (not in hwloc's PCI list)"
                                      : (", near cpus " + d["cpuset"].get<std::string>()).c_str());
  return 0;
}

}  // namespace

Json topology_report(const std::string& topology_file) {
  const Topology topo = topology_of(topology_file);
  NodeTopology node = topo.describe();
  read_sysfs_links(node, topology_file);
  auto j = node.to_json();
  j["runtime_devices"] = topology_file.empty() ? runtime_devices(node) : nlohmann::ordered_json::array();
  return j;
}

CommandFn add_topo_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand(
      "topo",
      "Describe the node with hwloc: packages, NUMA nodes and memory, caches, GPUs and NICs with the CPUs and NUMA "
      "nodes nearest them and each GPU's PCIe link (sysfs, read idle), hugepages and IOMMU, and which GPU runtime "
      "index is which PCI device");
  c->add_flag("--json", o->json, "Print JSON instead of the tree");
  c->add_option("--topology-file", o->topology_file,
                "Read a saved hwloc XML topology (lstopo --of xml) instead of "
                "this machine");
  return [o](const std::vector<std::string>&) { return run(*o); };
}

}  // namespace hetprobe::cli
