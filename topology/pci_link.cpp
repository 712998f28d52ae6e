#include "topology/pci_link.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>

#include "topology/topology.hpp"

namespace hetprobe {

namespace {

// The first line of a sysfs file; none when it cannot be read.
std::optional<std::string> read_attribute(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

// A width file's lanes; none for 0 (unknown) or text that is no whole number.
std::optional<int> parse_width(const std::string& text) {
  char* end = nullptr;
  const long lanes = std::strtol(text.c_str(), &end, 10);
  while (end != nullptr && (*end == ' ' || *end == '\t' || *end == '\r')) ++end;
  if (end == text.c_str() || end == nullptr || *end != '\0' || lanes <= 0 || lanes > 64) return std::nullopt;
  return static_cast<int>(lanes);
}

// " x16" or " x?".
std::string width_text(const std::optional<int>& lanes) { return lanes ? " x" + std::to_string(*lanes) : " x?"; }

std::string speed_text(const std::optional<double>& gts) {
  if (!gts) return "? GT/s";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GT/s", *gts);
  return buf;
}

}  // namespace

std::optional<double> parse_link_speed_gts(const std::string& text) {
  char* end = nullptr;
  const double gts = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(gts) || gts <= 0) return std::nullopt;  // "Unknown", ""
  std::string rest = end;
  rest.erase(0, rest.find_first_not_of(' '));
  if (rest.rfind("GT/s", 0) != 0) return std::nullopt;
  return gts;
}

std::optional<int> pcie_generation(double gts) {
  constexpr double kSpeeds[] = {2.5, 5, 8, 16, 32, 64};
  for (int i = 0; i < 6; ++i)
    if (std::abs(gts - kSpeeds[i]) < 0.05) return i + 1;
  return std::nullopt;
}

std::string sysfs_root() {
  const char* root = std::getenv("HETPROBE_SYSFS_ROOT");
  return root != nullptr && *root != '\0' ? root : "/sys";
}

bool sysfs_root_overridden() { return sysfs_root() != "/sys"; }

PciLink read_pci_link(const std::string& pci_bus_id, const std::string& root) {
  PciLink link;
  const auto address = PciAddress::parse(pci_bus_id);
  link.address = address ? address->str() : pci_bus_id;
  if (!address) {
    link.problem = "'" + pci_bus_id + "' is not a PCI address";
    return link;
  }
  const std::filesystem::path dir = std::filesystem::path(root) / "bus/pci/devices" / link.address;
  link.sysfs = dir.string();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    link.problem = "no " + link.sysfs;
    return link;
  }
  const auto current_speed = read_attribute(dir / "current_link_speed");
  const auto max_speed = read_attribute(dir / "max_link_speed");
  const auto current_width = read_attribute(dir / "current_link_width");
  const auto max_width = read_attribute(dir / "max_link_width");
  if (!current_speed && !max_speed && !current_width && !max_width) {
    link.problem = "no current_link_speed, max_link_speed, current_link_width or max_link_width in " + link.sysfs;
    return link;
  }
  if (current_speed) link.current_speed_gts = parse_link_speed_gts(*current_speed);
  if (max_speed) link.max_speed_gts = parse_link_speed_gts(*max_speed);
  if (current_width) link.current_width = parse_width(*current_width);
  if (max_width) link.max_width = parse_width(*max_width);
  if (!link.current_speed_gts && !link.max_speed_gts && !link.current_width && !link.max_width) {
    // Files there, but nothing known in them (a virtual device): say what they hold.
    link.problem = link.sysfs + " knows no link speed or width:";
    const std::pair<const char*, const std::optional<std::string>*> read[] = {{"current_link_speed", &current_speed},
                                                                              {"max_link_speed", &max_speed},
                                                                              {"current_link_width", &current_width},
                                                                              {"max_link_width", &max_width}};
    for (const auto& [name, value] : read)
      link.problem += std::string(" ") + name + (*value ? " '" + **value + "'" : " missing");
    return link;
  }
  if (link.current_speed_gts) link.current_generation = pcie_generation(*link.current_speed_gts);
  if (link.max_speed_gts) link.max_generation = pcie_generation(*link.max_speed_gts);
  const bool speeds = link.current_speed_gts && link.max_speed_gts;
  const bool widths = link.current_width && link.max_width;
  if (speeds || widths)
    link.below_max = (speeds && *link.current_speed_gts < *link.max_speed_gts) ||
                     (widths && *link.current_width < *link.max_width);
  return link;
}

std::string PciLink::text() const {
  std::string s = speed_text(current_speed_gts);
  if (current_generation) s += " (gen " + std::to_string(*current_generation) + ")";
  return s + width_text(current_width) + " of max " + speed_text(max_speed_gts) + width_text(max_width);
}

nlohmann::ordered_json PciLink::to_json() const {
  using J = nlohmann::ordered_json;
  auto or_null = [](const auto& v) { return v ? J(*v) : J(nullptr); };
  J j{{"current_speed_gts", or_null(current_speed_gts)},
      {"max_speed_gts", or_null(max_speed_gts)},
      {"current_generation", or_null(current_generation)},
      {"max_generation", or_null(max_generation)},
      {"current_width", or_null(current_width)},
      {"max_width", or_null(max_width)},
      {"below_max", or_null(below_max)},
      {"sysfs", sysfs.empty() ? J(nullptr) : J(sysfs)},
      {"status", read() ? "ok" : "skipped"}};
  if (!read()) j["skipped_reason"] = problem;
  return j;
}

}  // namespace hetprobe
