// The sysfs PCIe link reader against fake sysfs trees written into a temp
// directory: a full link, downtrained ones (speed, width only), "Unknown"
// speeds, missing files and directories, both spellings of the address, and
// HETPROBE_SYSFS_ROOT standing in for /sys.
#include "topology/pci_link.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>

#include "tests/unit/kernel_files.hpp"
#include "tests/unit/scratch_dir.hpp"
#include "topology/topology.hpp"

namespace hetprobe {
namespace {

// A fresh directory standing in for /sys, removed at the end of the test.
class FakeSysfs : public ::testing::Test {
 protected:
  // The device directory of `address` with `files` (name -> content).
  void device(const std::string& address, const std::map<std::string, std::string>& files) {
    write_kernel_files(dir(address), files);
  }
  void full_link(const std::string& address, const std::string& speed, const std::string& max_speed,
                 const std::string& width, const std::string& max_width) {
    device(address, {{"current_link_speed", speed},
                     {"max_link_speed", max_speed},
                     {"current_link_width", width},
                     {"max_link_width", max_width}});
  }
  std::string root() const { return root_.path().string(); }
  std::string dir(const std::string& address) const { return (root_.path() / "bus/pci/devices" / address).string(); }

 private:
  ScratchDir root_{"hetprobe_sysfs"};
};

TEST(PciLinkParse, SpeedsOfEveryKernelAndTheirGenerations) {
  EXPECT_EQ(parse_link_speed_gts("16.0 GT/s PCIe"), 16.0);
  EXPECT_EQ(parse_link_speed_gts("2.5 GT/s PCIe"), 2.5);
  EXPECT_EQ(parse_link_speed_gts("8 GT/s"), 8.0) << "older kernels";
  EXPECT_EQ(parse_link_speed_gts("5 GT/s"), 5.0);
  EXPECT_EQ(parse_link_speed_gts("64.0 GT/s PCIe"), 64.0);
  EXPECT_FALSE(parse_link_speed_gts("Unknown"));
  EXPECT_FALSE(parse_link_speed_gts("Unknown speed"));
  EXPECT_FALSE(parse_link_speed_gts(""));
  EXPECT_FALSE(parse_link_speed_gts("16.0 MB/s")) << "a number without GT/s is no link speed";
  const std::pair<double, int> generations[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}};
  for (const auto& [gts, generation] : generations) EXPECT_EQ(pcie_generation(gts), generation) << gts;
  EXPECT_FALSE(pcie_generation(10));
  EXPECT_FALSE(pcie_generation(0));
}

TEST_F(FakeSysfs, FullLinkIsAtItsMaximum) {
  full_link("0000:06:00.0", "16.0 GT/s PCIe", "16.0 GT/s PCIe", "16", "16");
  const PciLink l = read_pci_link("0000:06:00.0", root());
  ASSERT_TRUE(l.read()) << l.problem;
  EXPECT_EQ(l.address, "0000:06:00.0");
  EXPECT_EQ(l.sysfs, dir("0000:06:00.0"));
  EXPECT_EQ(l.current_speed_gts, 16.0);
  EXPECT_EQ(l.max_speed_gts, 16.0);
  EXPECT_EQ(l.current_generation, 4);
  EXPECT_EQ(l.max_generation, 4);
  EXPECT_EQ(l.current_width, 16);
  EXPECT_EQ(l.max_width, 16);
  EXPECT_EQ(l.below_max, false);
  EXPECT_EQ(l.text(), "16.0 GT/s (gen 4) x16 of max 16.0 GT/s x16");
  const auto j = l.to_json();
  EXPECT_EQ(j["status"], "ok");
  EXPECT_FALSE(j.contains("skipped_reason"));
  EXPECT_EQ(j["current_speed_gts"], 16.0);
  EXPECT_EQ(j["max_generation"], 4);
  EXPECT_EQ(j["current_width"], 16);
  EXPECT_EQ(j["below_max"], false);
  EXPECT_EQ(j["sysfs"], dir("0000:06:00.0"));
}

TEST_F(FakeSysfs, DowntrainedSpeedIsBelowMax) {
  full_link("0000:06:00.0", "2.5 GT/s PCIe", "32.0 GT/s PCIe", "16", "16");
  const PciLink l = read_pci_link("0000:06:00.0", root());
  ASSERT_TRUE(l.read()) << l.problem;
  EXPECT_EQ(l.current_generation, 1);
  EXPECT_EQ(l.max_generation, 5);
  EXPECT_EQ(l.below_max, true);
  EXPECT_EQ(l.text(), "2.5 GT/s (gen 1) x16 of max 32.0 GT/s x16");
  EXPECT_EQ(l.to_json()["below_max"], true);
}

TEST_F(FakeSysfs, WidthOnlyDowntrainingIsBelowMax) {
  full_link("0000:06:00.0", "16.0 GT/s PCIe", "16.0 GT/s PCIe", "8", "16");
  const PciLink l = read_pci_link("0000:06:00.0", root());
  ASSERT_TRUE(l.read()) << l.problem;
  EXPECT_EQ(l.current_speed_gts, l.max_speed_gts);
  EXPECT_EQ(l.current_width, 8);
  EXPECT_EQ(l.below_max, true);
  EXPECT_EQ(l.text(), "16.0 GT/s (gen 4) x8 of max 16.0 GT/s x16");
}

TEST_F(FakeSysfs, OlderKernelSpeedsWithoutPcieSuffix) {
  full_link("0000:06:00.0", "8 GT/s", "8 GT/s", "16", "16");
  const PciLink l = read_pci_link("0000:06:00.0", root());
  EXPECT_EQ(l.current_speed_gts, 8.0);
  EXPECT_EQ(l.current_generation, 3);
  EXPECT_EQ(l.below_max, false);
}

TEST_F(FakeSysfs, UnknownSpeedIsNullAndJudgedOnWidthAlone) {
  full_link("0000:06:00.0", "Unknown", "32.0 GT/s PCIe", "16", "16");
  const PciLink l = read_pci_link("0000:06:00.0", root());
  ASSERT_TRUE(l.read()) << l.problem;
  EXPECT_FALSE(l.current_speed_gts);
  EXPECT_FALSE(l.current_generation);
  EXPECT_EQ(l.max_speed_gts, 32.0);
  EXPECT_EQ(l.below_max, false) << "the speed pair is not known; the width pair is at its maximum";
  EXPECT_EQ(l.text(), "? GT/s x16 of max 32.0 GT/s x16");
  const auto j = l.to_json();
  EXPECT_TRUE(j["current_speed_gts"].is_null());
  EXPECT_TRUE(j["current_generation"].is_null());
  EXPECT_EQ(j["status"], "ok");

  full_link("0000:07:00.0", "Unknown", "Unknown", "4", "16");
  EXPECT_EQ(read_pci_link("0000:07:00.0", root()).below_max, true) << "width below max with both speeds unknown";
}

TEST_F(FakeSysfs, NothingKnownIsSkippedWithWhatWasRead) {
  full_link("0000:06:00.0", "Unknown", "Unknown", "0", "0");
  const PciLink l = read_pci_link("0000:06:00.0", root());
  EXPECT_FALSE(l.read());
  EXPECT_FALSE(l.below_max);
  EXPECT_NE(l.problem.find("current_link_speed 'Unknown'"), std::string::npos) << l.problem;
  EXPECT_NE(l.problem.find("max_link_width '0'"), std::string::npos) << l.problem;
  EXPECT_EQ(l.to_json()["status"], "skipped");
}

TEST_F(FakeSysfs, MissingFilesAndDirectoriesSayWhy) {
  device("0000:06:00.0", {});
  const PciLink no_files = read_pci_link("0000:06:00.0", root());
  EXPECT_FALSE(no_files.read());
  EXPECT_EQ(no_files.problem,
            "no current_link_speed, max_link_speed, current_link_width or max_link_width in " + dir("0000:06:00.0"));

  device("0000:08:00.0", {{"current_link_width", "16"}, {"max_link_width", "16"}});  // no speed files
  const PciLink widths = read_pci_link("0000:08:00.0", root());
  ASSERT_TRUE(widths.read()) << widths.problem;
  EXPECT_FALSE(widths.current_speed_gts);
  EXPECT_FALSE(widths.max_speed_gts);
  EXPECT_EQ(widths.current_width, 16);
  EXPECT_EQ(widths.below_max, false);

  const PciLink absent = read_pci_link("0000:09:00.0", root());
  EXPECT_FALSE(absent.read());
  EXPECT_EQ(absent.problem, "no " + dir("0000:09:00.0"));
  const auto j = absent.to_json();
  EXPECT_EQ(j["status"], "skipped");
  EXPECT_EQ(j["skipped_reason"], "no " + dir("0000:09:00.0"));
  for (const char* unknown : {"current_speed_gts", "max_speed_gts", "current_generation", "max_generation",
                              "current_width", "max_width", "below_max"})
    EXPECT_TRUE(j[unknown].is_null()) << unknown;

  const PciLink bad = read_pci_link("GPU-0", root());
  EXPECT_FALSE(bad.read());
  EXPECT_NE(bad.problem.find("'GPU-0' is not a PCI address"), std::string::npos) << bad.problem;
  EXPECT_TRUE(bad.to_json()["sysfs"].is_null());
}

TEST_F(FakeSysfs, EightDigitDomainAndUpperCaseReadTheSysfsName) {
  full_link("0000:ca:00.0", "8.0 GT/s PCIe", "16.0 GT/s PCIe", "16", "16");
  for (const char* given : {"00000000:ca:00.0", "00000000:CA:00.0", "0000:CA:00.0"}) {
    const PciLink l = read_pci_link(given, root());
    ASSERT_TRUE(l.read()) << given << ": " << l.problem;
    EXPECT_EQ(l.address, "0000:ca:00.0") << given;
    EXPECT_EQ(l.sysfs, dir("0000:ca:00.0")) << given;
    EXPECT_EQ(l.below_max, true) << given;
  }
}

TEST_F(FakeSysfs, EnvironmentNamesTheRoot) {
  full_link("0000:06:00.0", "16.0 GT/s PCIe", "16.0 GT/s PCIe", "16", "16");
  const char* before = std::getenv("HETPROBE_SYSFS_ROOT");
  const std::string saved = before != nullptr ? before : "";
  ::setenv("HETPROBE_SYSFS_ROOT", root().c_str(), 1);
  EXPECT_EQ(sysfs_root(), root());
  EXPECT_TRUE(sysfs_root_overridden());
  const PciLink l = read_pci_link("0000:06:00.0");
  EXPECT_TRUE(l.read()) << l.problem;
  EXPECT_EQ(l.sysfs, dir("0000:06:00.0"));
  ::unsetenv("HETPROBE_SYSFS_ROOT");
  EXPECT_EQ(sysfs_root(), "/sys");
  EXPECT_FALSE(sysfs_root_overridden());
  EXPECT_EQ(read_pci_link("0000:06:00.0", "/nonexistent-sysfs").problem,
            "no /nonexistent-sysfs/bus/pci/devices/0000:06:00.0");
  if (before != nullptr) ::setenv("HETPROBE_SYSFS_ROOT", saved.c_str(), 1);
}

TEST_F(FakeSysfs, TopoTreeAndJsonShowTheLinkOnlyWhereRead) {
  full_link("0000:ca:00.0", "2.5 GT/s PCIe", "16.0 GT/s PCIe", "16", "16");
  NodeTopology n = Topology::from_xml(HETPROBE_TEST_DATA_DIR "/topology/two-socket-gpus-nic.xml").describe();
  ASSERT_EQ(n.gpus.size(), 2u);
  EXPECT_FALSE(n.gpus[0].sysfs_link) << "describe() reads no link: results headers do not carry it";
  EXPECT_FALSE(n.to_json()["gpus"][0].contains("sysfs_link"));
  EXPECT_EQ(n.tree().find("PCIe link"), std::string::npos);
  for (PciDevice& g : n.gpus) g.sysfs_link = read_pci_link(g.address.str(), root());
  const std::string tree = n.tree();
  EXPECT_NE(tree.find("PCIe link (sysfs, idle read): 2.5 GT/s (gen 1) x16 of max 16.0 GT/s x16, below max"),
            std::string::npos)
      << tree;
  EXPECT_NE(tree.find("PCIe link (sysfs): not read: no " + dir("0000:17:00.0")), std::string::npos) << tree;
  const auto j = n.to_json();
  const auto& ca = j["gpus"][1];
  ASSERT_EQ(ca["pci_bus_id"], "0000:ca:00.0");
  EXPECT_EQ(ca["sysfs_link"]["read_while"], "idle");
  EXPECT_EQ(ca["sysfs_link"]["below_max"], true);
  EXPECT_EQ(ca["sysfs_link"]["current_generation"], 1);
  EXPECT_EQ(j["gpus"][0]["sysfs_link"]["status"], "skipped");
  EXPECT_FALSE(j["nics"][0].contains("sysfs_link"));
}

}  // namespace
}  // namespace hetprobe
