// Topology against committed hwloc XML files (a one-socket workstation; a
// two-socket node with a GPU per socket and an InfiniBand NIC), never against
// the CI machine's own layout; on the real machine only that discovery works
// and agrees with the OS, and that binding is read back as asked.
#include "topology/topology.hpp"

#include <sched.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "base/errors.hpp"
#include "bench/core/placement.hpp"
#include "topology/node_info.hpp"

namespace hetprobe {
namespace {

const std::string kData = HETPROBE_TEST_DATA_DIR "/topology/";

PciAddress pci(const char* text) { return *PciAddress::parse(text); }

TEST(PciAddress, ParsesBothSpellingsAndPrintsOne) {
  EXPECT_EQ(pci("0000:ca:00.0"), pci("00000000:CA:00.0")) << "the CUDA runtime's 8-digit domain";
  EXPECT_EQ(pci("0000:17:1f.3").str(), "0000:17:1f.3");
  EXPECT_FALSE(PciAddress::parse("ca:00.0"));
  EXPECT_FALSE(PciAddress::parse("0000:ca:00.0 trailing"));
  EXPECT_FALSE(PciAddress::parse(""));
}

TEST(TopologyXml, TwoSocketNodeWithGpusAndNic) {
  const NodeTopology n = Topology::from_xml(kData + "two-socket-gpus-nic.xml").describe();
  EXPECT_EQ(n.packages, 2);
  EXPECT_EQ(n.numa_nodes, 2);
  EXPECT_EQ(n.cores, 32);
  EXPECT_EQ(n.pus, 64);
  ASSERT_EQ(n.numa.size(), 2u);
  EXPECT_EQ(n.numa[1].os_index, 1);
  EXPECT_EQ(n.numa[1].memory_bytes, 256ull << 30);
  EXPECT_EQ(n.numa[1].cpuset, "16-31,48-63");
  ASSERT_EQ(n.gpus.size(), 2u);
  ASSERT_EQ(n.nics.size(), 1u);
  EXPECT_EQ(n.gpus[0].address, pci("0000:17:00.0"));
  EXPECT_EQ(n.gpus[0].numa_nodes, std::vector<int>{0});
  EXPECT_EQ(n.gpus[0].cpuset, "0-15,32-47");
  EXPECT_EQ(n.gpus[1].numa_nodes, std::vector<int>{1});
  EXPECT_EQ(n.gpus[1].os_devices, std::vector<std::string>{"cuda1"});
  EXPECT_NEAR(n.gpus[1].link_gbps, 63.0, 0.1);
  EXPECT_EQ(n.nics[0].address, pci("0000:cb:00.0"));
  EXPECT_EQ(n.nics[0].class_id, 0x0207u);
  EXPECT_EQ(n.nics[0].numa_nodes, std::vector<int>{1});
  EXPECT_EQ(n.nics[0].os_devices, (std::vector<std::string>{"mlx5_0", "ib0"}));
  const auto has_cache = [&](const char* name, std::uint64_t size, int count) {
    for (const CacheLevel& c : n.caches)
      if (c.name == name) return c.size_bytes == size && c.count == count;
    return false;
  };
  EXPECT_TRUE(has_cache("L3", 64ull << 20, 2));
  EXPECT_TRUE(has_cache("L2", 2ull << 20, 32));
  EXPECT_EQ(n.memory.page_size_bytes, 0) << "a file's topology must not carry this machine's /sys settings";
}

TEST(TopologyXml, NearAndFarCpusetsFollowTheGpu) {
  const Topology t = Topology::from_xml(kData + "two-socket-gpus-nic.xml");
  EXPECT_EQ(t.cpuset_near(pci("0000:ca:00.0")), "16-31,48-63");
  EXPECT_EQ(t.cpuset_far(pci("0000:ca:00.0")), "0-15,32-47");
  EXPECT_EQ(t.cpuset_far(pci("0000:17:00.0")), "16-31,48-63");
  EXPECT_EQ(t.numa_nodes_of("3,40"), std::vector<int>{0});
  // mpirun's per-core binding inside the GPU's socket is kept; one outside it is replaced.
  EXPECT_EQ(t.intersect_or("16-31,48-63", "17"), "17");
  EXPECT_EQ(t.intersect_or("16-31,48-63", "0-3"), "16-31,48-63");
  EXPECT_EQ(t.intersect_or("16-31,48-63", ""), "16-31,48-63");
  EXPECT_EQ(t.numa_nodes_of("15-16"), (std::vector<int>{0, 1}));
}

TEST(TopologyXml, OneSocketHasNoFarSide) {
  const Topology t = Topology::from_xml(kData + "one-socket.xml");
  const NodeTopology n = t.describe();
  EXPECT_EQ(n.packages, 1);
  EXPECT_EQ(n.pus, 16);
  ASSERT_EQ(n.gpus.size(), 1u);
  ASSERT_EQ(n.nics.size(), 1u);
  EXPECT_EQ(n.gpus[0].cpuset, "0-15");
  EXPECT_EQ(t.cpuset_near(pci("0000:01:00.0")), "0-15");
  try {
    (void)t.cpuset_far(pci("0000:01:00.0"));
    ADD_FAILURE() << "far-gpu on a one-NUMA-node machine must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("no far side"), std::string::npos) << e.what();
  }
}

TEST(TopologyXml, UnknownDevicesAndBadInputAreUsageErrors) {
  const Topology t = Topology::from_xml(kData + "one-socket.xml");
  for (auto f : {+[](const Topology& x) { (void)x.cpuset_near(pci("0000:99:00.0")); },
                 +[](const Topology& x) { (void)x.numa_nodes_of("0-99"); },
                 +[](const Topology& x) { (void)x.numa_nodes_of("zero"); }}) {
    try {
      f(t);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    }
  }
  for (const std::string& path : {kData + "missing.xml", std::string(HETPROBE_TEST_DATA_DIR "/../CMakeLists.txt")}) {
    try {
      (void)Topology::from_xml(path);
      ADD_FAILURE() << path << " loaded";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    }
  }
}

TEST(TopologyXml, TreeAndJsonCarryTheLocality) {
  const NodeTopology n = Topology::from_xml(kData + "two-socket-gpus-nic.xml").describe();
  const std::string tree = n.tree();
  EXPECT_NE(tree.find("2 package(s), 2 NUMA node(s), 32 cores, 64 PUs"), std::string::npos) << tree;
  const auto numa1 = tree.find("NUMA 1:");
  const auto nic = tree.find("NIC 0000:cb:00.0");
  ASSERT_NE(numa1, std::string::npos);
  EXPECT_GT(nic, numa1) << "the NIC must be listed under the NUMA node it is near\n" << tree;
  const auto j = n.to_json();
  EXPECT_EQ(j["gpus"][1]["pci_bus_id"], "0000:ca:00.0");
  EXPECT_EQ(j["nics"][0]["numa_nodes"][0], 1);
}

// The real machine: only that discovery works and agrees with the OS.
TEST(TopologyThisMachine, DiscoveryAgreesWithTheOs) {
  const NodeTopology n = Topology::discover().describe();
  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  ASSERT_EQ(sched_getaffinity(0, sizeof affinity, &affinity), 0);
  EXPECT_GE(n.packages, 1);
  EXPECT_GE(n.numa_nodes, 1);
  EXPECT_GE(n.cores, 1);
  // hwloc counts the CPUs this process's cgroup allows (a container's or a batch job's share of the
  // node): at least those it may run on, at most those online.
  EXPECT_GE(n.pus, CPU_COUNT(&affinity));
  EXPECT_LE(n.pus, read_node_info().online_cpus);
  std::uint64_t memory = 0;
  for (const NumaNode& x : n.numa) memory += x.memory_bytes;
  EXPECT_GT(memory, 0u);
  EXPECT_GT(n.memory.page_size_bytes, 0);
}

TEST(TopologyThisMachine, BindingIsReadBack) {
  const Topology t = Topology::discover();
  const std::string before = t.bound_cpuset();
  ASSERT_FALSE(before.empty());
  const std::string one = before.substr(0, before.find_first_of(",-"));  // the first allowed CPU
  t.bind(one);
  EXPECT_EQ(t.bound_cpuset(), one);
  EXPECT_EQ(cpu_affinity_list(), one) << "the OS's own view must agree";
  EXPECT_EQ(t.membind_nodes(), t.numa_nodes_of(one));
  std::vector<char> buffer(1 << 20);
  std::memset(buffer.data(), 1, buffer.size());
  const std::vector<int> where = t.memory_location(buffer.data(), buffer.size());
  for (int node : where) EXPECT_EQ(t.numa_nodes_of(one).front(), node);
  t.bind(before);
  EXPECT_EQ(t.bound_cpuset(), before);
}

}  // namespace
}  // namespace hetprobe

namespace hetprobe {
namespace {

// --bind's policy is typed when the option is parsed: a name, or a cpu list
// (kept as given for the topology to check), written back as given.
TEST(BindPolicy, NamesAndCpuListsParseAndPrintAsGiven) {
  for (const char* name : {"near-gpu", "far-gpu", "none"}) {
    const BindPolicy p = parse_bind(name);
    EXPECT_NE(p.kind, BindKind::cpus) << name;
    EXPECT_EQ(p.text(), name);
  }
  EXPECT_EQ(parse_bind("near-gpu").kind, BindKind::near_gpu);
  const BindPolicy list = parse_bind("0-7,16");
  EXPECT_EQ(list.kind, BindKind::cpus);
  EXPECT_EQ(list.cpus, "0-7,16");
  EXPECT_EQ(list.text(), "0-7,16");
  EXPECT_EQ(BindPolicy{}.text(), "near-gpu") << "the default";
  for (const char* bad : {"", "socket0", "Near-gpu", "near_gpu", " 0-7"})
    EXPECT_THROW((void)parse_bind(bad), Error) << '"' << bad << '"';
}

}  // namespace
}  // namespace hetprobe
