// The run header's CPU conditions against fake sysfs trees written into a
// temp directory (a full cpufreq and cpuidle, a VM's tree without them,
// disabled idle states, THP), the CPUs a thread ran on, and numa_node_of
// against the kernel: a touched page's node is one /sys lists, an untouched
// one has none, and a refused move_pages gives none.
#include "bench/core/cpu_conditions.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench/core/numa_of.hpp"
#include "tests/unit/kernel_files.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace hetprobe {
namespace {

namespace fs = std::filesystem;

// A fresh directory standing in for /sys, removed at the end of the test.
class FakeCpuSysfs : public ::testing::Test {
 protected:
  // Files under `dir` (relative to the root): name -> content.
  void files(const std::string& dir, const std::map<std::string, std::string>& contents) {
    write_kernel_files(root() / dir, contents);
  }
  void idle_state(int cpu, int k, const std::string& name, const std::string& disable, const std::string& latency) {
    files("devices/system/cpu/cpu" + std::to_string(cpu) + "/cpuidle/state" + std::to_string(k),
          {{"name", name}, {"disable", disable}, {"latency", latency}});
  }
  const fs::path& root() const { return root_.path(); }

 private:
  ScratchDir root_{"hetprobe_cpusysfs"};
};

TEST_F(FakeCpuSysfs, ReadsGovernorFrequenciesInMhzAndTheEnabledIdleStates) {
  files("devices/system/cpu/cpu3/cpufreq", {{"scaling_governor", "performance"},
                                            {"scaling_min_freq", "800000"},
                                            {"scaling_max_freq", "3500000"},
                                            {"scaling_cur_freq", "2394123"}});
  idle_state(3, 0, "POLL", "0", "0");
  idle_state(3, 1, "C1", "0", "2");
  idle_state(3, 2, "C1E", "1", "10");  // disabled: not listed
  idle_state(3, 3, "C6", "0", "133");
  const CpuConditions c = read_cpu_conditions(3, root());
  EXPECT_EQ(c.cpu, 3);
  EXPECT_EQ(c.governor, "performance");
  EXPECT_EQ(c.min_mhz, 800.0);
  EXPECT_EQ(c.max_mhz, 3500.0);
  EXPECT_DOUBLE_EQ(c.cur_mhz.value(), 2394.123);
  ASSERT_TRUE(c.idle_states.has_value());
  ASSERT_EQ(c.idle_states->size(), 3u);
  EXPECT_EQ((*c.idle_states)[0].name, "POLL");
  EXPECT_EQ((*c.idle_states)[1].name, "C1");
  EXPECT_EQ((*c.idle_states)[1].latency_us, 2);
  EXPECT_EQ((*c.idle_states)[2].name, "C6");
  EXPECT_EQ((*c.idle_states)[2].latency_us, 133);

  const Json j = cpu_conditions_json(c);
  EXPECT_EQ(j.dump(), R"({"cpu":3,"governor":"performance","min_mhz":800.0,"max_mhz":3500.0,"cur_mhz":2394.123,)"
                      R"("idle_states":[{"name":"POLL","latency_us":0},{"name":"C1","latency_us":2},)"
                      R"({"name":"C6","latency_us":133}]})");
}

TEST_F(FakeCpuSysfs, AVmWithoutCpufreqOrCpuidleGivesNulls) {
  fs::create_directories(root() / "devices/system/cpu/cpu0");
  const CpuConditions c = read_cpu_conditions(0, root());
  EXPECT_FALSE(c.governor);
  EXPECT_FALSE(c.min_mhz);
  EXPECT_FALSE(c.max_mhz);
  EXPECT_FALSE(c.cur_mhz);
  EXPECT_FALSE(c.idle_states) << "no cpuidle is not the same as every state disabled";
  EXPECT_EQ(cpu_conditions_json(c).dump(),
            R"({"cpu":0,"governor":null,"min_mhz":null,"max_mhz":null,"cur_mhz":null,"idle_states":null})");
}

TEST_F(FakeCpuSysfs, EveryStateDisabledIsAnEmptyListAndBadNumbersAreNull) {
  files("devices/system/cpu/cpu1/cpufreq", {{"scaling_governor", "powersave"}, {"scaling_cur_freq", "<unknown>"}});
  idle_state(1, 0, "POLL", "1", "0");
  idle_state(1, 1, "C1", "1", "2");
  const CpuConditions c = read_cpu_conditions(1, root());
  EXPECT_EQ(c.governor, "powersave");
  EXPECT_FALSE(c.cur_mhz) << "not a number: none, not 0";
  EXPECT_FALSE(c.min_mhz) << "absent";
  ASSERT_TRUE(c.idle_states.has_value());
  EXPECT_TRUE(c.idle_states->empty());
}

TEST_F(FakeCpuSysfs, TransparentHugepagesSelectedValues) {
  files("kernel/mm/transparent_hugepage",
        {{"enabled", "always [madvise] never"}, {"defrag", "always defer defer+madvise [madvise] never"}});
  const TransparentHugepages t = read_transparent_hugepages(root());
  EXPECT_EQ(t.enabled, "madvise");
  EXPECT_EQ(t.defrag, "madvise");
  EXPECT_EQ(transparent_hugepages_json(t).dump(), R"({"enabled":"madvise","defrag":"madvise"})");
}

TEST_F(FakeCpuSysfs, TransparentHugepagesAbsentAreNull) {
  const TransparentHugepages t = read_transparent_hugepages(root());
  EXPECT_FALSE(t.enabled);
  EXPECT_FALSE(t.defrag);
  EXPECT_EQ(transparent_hugepages_json(t).dump(), R"({"enabled":null,"defrag":null})");
}

TEST(CpusRanOn, AreInTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const std::vector<int> cpus = sample_cpus_ran_on(4, std::chrono::microseconds(100));
  ASSERT_FALSE(cpus.empty());
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    EXPECT_TRUE(CPU_ISSET(cpus[i], &set)) << "cpu " << cpus[i];
    if (i > 0) {
      EXPECT_LT(cpus[i - 1], cpus[i]) << "ascending, each once";
    }
  }
}

// 0 when this kernel answers move_pages in query mode, else its errno (a
// seccomp filter or a kernel without NUMA refuses it).
int move_pages_refusal(void* page) {
  int status = 0;
  return syscall(SYS_move_pages, 0, 1UL, &page, nullptr, &status, 0) == 0 ? 0 : errno;
}

// The nodes /sys/devices/system/node lists (node0, node1, ...).
std::vector<int> sysfs_nodes() {
  std::vector<int> nodes;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/sys/devices/system/node", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("node", 0) == 0 && name.size() > 4 && name.find_first_not_of("0123456789", 4) == std::string::npos)
      nodes.push_back(std::stoi(name.substr(4)));
  }
  return nodes;
}

TEST(NumaNodeOf, ATouchedPageIsOnANodeSysfsListsAnUntouchedOneOnNone) {
  const long page = sysconf(_SC_PAGESIZE);
  void* p = mmap(nullptr, static_cast<std::size_t>(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                 0);
  ASSERT_NE(p, MAP_FAILED);
  auto* bytes = static_cast<char*>(p);
  std::memset(bytes, 1, static_cast<std::size_t>(page));         // the first page only
  const std::optional<int> touched = numa_node_of(bytes + 100);  // inside the page, not at its start
  const std::optional<int> untouched = numa_node_of(bytes + page);
  const int refusal = move_pages_refusal(p);
  munmap(p, static_cast<std::size_t>(2 * page));

  EXPECT_FALSE(untouched) << "a page never touched is not present: no node";
  if (refusal != 0) {
    EXPECT_FALSE(touched) << "move_pages is refused here: no node";
    GTEST_SKIP() << "move_pages is refused on this machine: " << std::strerror(refusal);
  }
  ASSERT_TRUE(touched.has_value());
  const std::vector<int> nodes = sysfs_nodes();
  EXPECT_NE(std::find(nodes.begin(), nodes.end(), *touched), nodes.end())
      << "node " << *touched << " is not one /sys/devices/system/node lists";
  if (nodes.size() == 1) {
    EXPECT_EQ(*touched, nodes[0]) << "one node: every page is on it";
  }
}

TEST(NumaNodeOf, AnUnmappedAddressHasNone) {
  const long page = sysconf(_SC_PAGESIZE);
  void* p = mmap(nullptr, static_cast<std::size_t>(page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  munmap(p, static_cast<std::size_t>(page));
  EXPECT_FALSE(numa_node_of(p));
}

}  // namespace
}  // namespace hetprobe
