#include "topology/pci_link.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <string_view>
#include <utility>

#include "base/echo_text.hpp"
#include "base/small_file.hpp"
#include "topology/topology.hpp"

namespace hetprobe {

namespace {

// Speeds above this are no PCIe link's (gen 7 is 128 GT/s): a fake or broken
// sysfs file, not a number to print.
constexpr double kMaxLinkSpeedGts = 256;

// One sysfs attribute: its first line, or why there is none ("missing",
// "is a FIFO, not a regular file").
struct Attribute {
  const char* name;
  std::optional<std::string> line;
  std::string problem;
};

Attribute read_attribute(const std::filesystem::path& dir, const char* name) {
  Attribute a{name, std::nullopt, ""};
  a.line = read_first_line(dir / name, &a.problem);
  return a;
}

// How `hetprobe topo` and the records quote a value read: valid UTF-8, cut short.
std::string quoted(const std::string& text) {
  std::string out(1, '\'');  // built up: GCC 12 warns falsely (-Wrestrict) of "'" + a temporary
  out += echo_text(text);
  out += '\'';
  return out;
}

// The widest PCIe link has 32 lanes; 64 leaves room for what a kernel may report.
constexpr long kMaxLinkWidth = 64;

// A width file's lanes; none for 0 (unknown) or text that is no whole number.
std::optional<int> parse_width(const std::string& text) {
  char* end = nullptr;
  const long lanes = std::strtol(text.c_str(), &end, 10);
  while (end != nullptr && (*end == ' ' || *end == '\t' || *end == '\r')) ++end;
  if (end == text.c_str() || end == nullptr || *end != '\0' || lanes <= 0 || lanes > kMaxLinkWidth) return std::nullopt;
  return static_cast<int>(lanes);
}

// Why a value that reads as a number is none the less not taken (a speed
// above any PCIe link's, a width above 64 lanes); "" when it is fine or
// plainly unknown ("Unknown", and "0" lanes, which the kernel writes for no link).
std::string implausible(const Attribute& a, bool speed) {
  if (!a.line) return "";
  const char* text = a.line->c_str();
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text) return "";
  if (speed && !parse_link_speed_gts(*a.line) && std::string_view(end).find("GT/s") != std::string_view::npos)
    return std::string(a.name) + " " + quoted(*a.line) + ": not a PCIe link speed (above 0, at most " +
           std::to_string(static_cast<int>(kMaxLinkSpeedGts)) + " GT/s)";
  if (!speed && !parse_width(*a.line) && value != 0)
    return std::string(a.name) + " " + quoted(*a.line) + ": not a PCIe link width (1 to " +
           std::to_string(kMaxLinkWidth) + " lanes)";
  return "";
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
  if (end == text.c_str() || !std::isfinite(gts) || gts <= 0 || gts > kMaxLinkSpeedGts)
    return std::nullopt;  // "Unknown", "", "1e308 GT/s"
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
  const Attribute current_speed = read_attribute(dir, "current_link_speed");
  const Attribute max_speed = read_attribute(dir, "max_link_speed");
  const Attribute current_width = read_attribute(dir, "current_link_width");
  const Attribute max_width = read_attribute(dir, "max_link_width");
  const Attribute* all[] = {&current_speed, &max_speed, &current_width, &max_width};
  if (std::all_of(std::begin(all), std::end(all), [](const Attribute* a) { return a->problem == "missing"; })) {
    link.problem = "no current_link_speed, max_link_speed, current_link_width or max_link_width in " + link.sysfs;
    return link;
  }
  if (current_speed.line) link.current_speed_gts = parse_link_speed_gts(*current_speed.line);
  if (max_speed.line) link.max_speed_gts = parse_link_speed_gts(*max_speed.line);
  if (current_width.line) link.current_width = parse_width(*current_width.line);
  if (max_width.line) link.max_width = parse_width(*max_width.line);
  for (const Attribute* a : all) {
    const std::string why = a->problem.empty() || a->problem == "missing"
                                ? implausible(*a, a == &current_speed || a == &max_speed)
                                : std::string(a->name) + " " + a->problem;
    if (!why.empty()) link.unreadable.push_back(why);
  }
  if (!link.current_speed_gts && !link.max_speed_gts && !link.current_width && !link.max_width) {
    // Files there, but nothing known in them (a virtual device): say what they hold.
    link.problem = link.sysfs + " knows no link speed or width:";
    for (const Attribute* a : all)
      link.problem += std::string(" ") + a->name + " " + (a->line ? quoted(*a->line) : a->problem);
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
  s += width_text(current_width) + " of max " + speed_text(max_speed_gts) + width_text(max_width);
  for (const std::string& u : unreadable) s += "; not taken: " + u;
  return s;
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
      {"sysfs", sysfs.empty() ? J(nullptr) : J(valid_utf8(sysfs))},
      {"status", read() ? "ok" : "skipped"}};
  if (!read()) j["skipped_reason"] = valid_utf8(problem);
  if (read() && !unreadable.empty()) j["unreadable"] = unreadable;
  return j;
}

}  // namespace hetprobe
