// Host memory available against fake cgroup trees (HETPROBE_SYSFS_ROOT/fs/cgroup):
// v2 and v1 limits at this process's own cgroup and at a parent, the tightest
// taken, reclaimable page cache counted free, "max" as no limit, and the
// message naming the cgroup whose limit refused a run.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "base/errors.hpp"
#include "base/small_file.hpp"
#include "probes/device/device.hpp"
#include "tests/unit/kernel_files.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace hetprobe {
namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t kGiB = 1ull << 30;

// This process's cgroup path: v2's ("0::/path"), or v1's memory controller's ("4:memory:/path").
std::string own_path(bool v1_memory) {
  std::istringstream lines(read_small_file("/proc/self/cgroup", 65536).value_or(""));
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string list = line.substr(first + 1, second - first - 1);
    if (v1_memory ? ("," + list + ",").find(",memory,") != std::string::npos : list.empty())
      return line.substr(second + 1);
  }
  return "/";
}

// A fresh directory standing in for /sys (HETPROBE_SYSFS_ROOT), removed at the end of the test.
class FakeCgroups : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_.path() / "fs/cgroup/memory");
    ::setenv("HETPROBE_SYSFS_ROOT", root_.path().c_str(), 1);
  }
  void TearDown() override { ::unsetenv("HETPROBE_SYSFS_ROOT"); }
  // Writes `files` (name -> content) into the cgroup directory `relative` under fs/cgroup.
  fs::path cgroup(const fs::path& relative, const std::map<std::string, std::string>& files) {
    fs::path dir = root_.path() / "fs/cgroup";
    if (!relative.relative_path().empty()) dir /= relative.relative_path();
    write_kernel_files(dir, files);
    return dir;
  }
  ScratchDir root_{"hetprobe_cgroups"};
};

TEST_F(FakeCgroups, WithoutLimitsMemAvailableStands) {
  const HostMemory m = host_memory();
  EXPECT_TRUE(m.limited_by_cgroup.empty()) << m.limited_by_cgroup;
  EXPECT_GT(m.available, 0u);
  cgroup("", {{"memory.max", "max"}, {"memory.current", "0"}});
  EXPECT_TRUE(host_memory().limited_by_cgroup.empty()) << "\"max\" is no limit";
}

TEST_F(FakeCgroups, V2LimitOfThisProcessesCgroupLessItsUseBeyondReclaimableCache) {
  const fs::path dir = cgroup(own_path(false), {{"memory.max", std::to_string(2 * kGiB)},
                                                {"memory.current", std::to_string(3 * kGiB / 2)},
                                                {"memory.stat", "anon 1\ninactive_file " + std::to_string(kGiB)}});
  const HostMemory m = host_memory();
  EXPECT_EQ(m.available, 3 * kGiB / 2);
  EXPECT_EQ(fs::path(m.limited_by_cgroup), dir);
}

TEST_F(FakeCgroups, TheTightestOfTheCgroupAndItsParentsV1AndV2) {
  cgroup("", {{"memory.max", std::to_string(8 * kGiB)}, {"memory.current", "0"}});
  // Without a v1 memory line (a v2-only node) the process's v1 path is "/": the memory hierarchy's root.
  const fs::path own_v1 = fs::path(own_path(true)).relative_path();
  const fs::path v1 = cgroup(own_v1.empty() ? fs::path("memory") : fs::path("memory") / own_v1,
                             {{"memory.limit_in_bytes", std::to_string(kGiB)},
                              {"memory.usage_in_bytes", std::to_string(kGiB / 4)}});
  HostMemory m = host_memory();
  EXPECT_EQ(m.available, 3 * kGiB / 4);
  EXPECT_EQ(fs::path(m.limited_by_cgroup), v1);
  try {
    check_memory_available(kGiB, "--size 1GiB");
    FAIL() << "1 GiB is above the cgroup's 0.75 GiB";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("0.75 GiB is available now (the memory limit of cgroup " + v1.string()),
              std::string::npos)
        << e.what();
  }
  // A used-up limit leaves nothing, and a use above the limit does not wrap.
  cgroup("", {{"memory.max", std::to_string(kGiB)}, {"memory.current", std::to_string(2 * kGiB)}});
  m = host_memory();
  EXPECT_EQ(m.available, 0u);
  EXPECT_THROW(check_memory_available(4096, "4 KiB"), Error);
}

}  // namespace
}  // namespace hetprobe
