// A PCI device's PCIe link as Linux's sysfs reports it: current and maximum
// speed and width, read from /sys/bus/pci/devices/<address>/. Vendor-neutral.
// It is the link of the device itself: behind a PCIe switch, the GPU's link to
// the switch (not the switch's to the CPU); in a VM, what the virtual
// topology reports for that address. NVIDIA GPUs lower their link speed when
// idle, so a read means most while the device moves data.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/small_file.hpp"  // sysfs_root()

namespace hetprobe {

struct PciLink {
  std::string address;  // normalised as sysfs names it: "0000:06:00.0"; as given where it does not parse
  std::string sysfs;    // the directory read: "/sys/bus/pci/devices/0000:06:00.0"
  std::optional<double> current_speed_gts, max_speed_gts;  // GT/s; none: missing or "Unknown"
  std::optional<int> current_generation, max_generation;   // PCIe generation of each speed (2.5 GT/s: 1 ... 64: 6)
  std::optional<int> current_width, max_width;             // lanes; none: missing or 0
  // Speed or width below its maximum, judged only where both of a pair are
  // known; none when neither pair is.
  std::optional<bool> below_max;
  std::string problem;  // why nothing was read ("no /sys/bus/pci/devices/..."); "" when read
  // Attributes there but not taken, each with why, where others were read:
  // "current_link_speed '1e308 GT/s': not a PCIe link speed (...)", "max_link_width is a FIFO, ...".
  std::vector<std::string> unreadable;

  bool read() const { return problem.empty(); }
  // "16.0 GT/s (gen 4) x16 of max 16.0 GT/s x16", "?" for what is unknown, then what was not taken.
  std::string text() const;
  // The fields a link record carries: current/max speed, generation and
  // width (null where unknown), below_max, sysfs, status "ok" or "skipped"
  // with skipped_reason, and unreadable where some were not taken.
  nlohmann::ordered_json to_json() const;
};

// Reads the link of `pci_bus_id` ("0000:06:00.0" or the runtime's
// "00000000:06:00.0") under `root`. Never throws: a missing directory or
// files give a PciLink whose problem says why.
PciLink read_pci_link(const std::string& pci_bus_id, const std::string& root = sysfs_root());

// "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s" -> GT/s; "Unknown", "", a speed above
// 256 GT/s (no PCIe link's) or anything else -> none.
std::optional<double> parse_link_speed_gts(const std::string& text);
// The PCIe generation of a link speed (2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6); none for others.
std::optional<int> pcie_generation(double gts);

}  // namespace hetprobe
