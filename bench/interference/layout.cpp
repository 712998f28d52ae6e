#include "bench/interference/layout.hpp"

#include <algorithm>
#include <cctype>

#include "bench/core/errors.hpp"
#include "bench/core/text_list.hpp"

namespace hetprobe {

namespace {
constexpr Layout kAll[] = {Layout::SSB, Layout::PSB, Layout::PCB, Layout::P2AB};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}
}  // namespace

const char* to_string(Layout layout) {
  switch (layout) {
    case Layout::SSB: return "SSB";
    case Layout::PSB: return "PSB";
    case Layout::PCB: return "PCB";
    case Layout::P2AB: return "P2AB";
  }
  return "?";
}

Layout parse_layout(std::string_view text) {
  const std::string u = upper(text);
  for (Layout l : kAll)
    if (u == to_string(l)) return l;
  throw usage_error("unknown layout '" + std::string(text) + "' (expected SSB, PSB, PCB, P2AB or all)");
}

std::vector<Layout> parse_layout_list(std::string_view text) {
  if (upper(text) == "ALL") return {std::begin(kAll), std::end(kAll)};
  std::vector<Layout> out;
  for (const std::string& item : split_list(std::string(text), "--layouts")) {
    const Layout l = parse_layout(item);
    if (std::find(out.begin(), out.end(), l) != out.end())
      throw usage_error("layout " + std::string(to_string(l)) + " is listed twice");
    out.push_back(l);
  }
  std::stable_partition(out.begin(), out.end(), [](Layout l) { return l == Layout::SSB; });
  return out;
}

std::uint64_t LayoutPlan::post_offset() const {
  return layout == Layout::PSB ? mpi_offset : secondary_offset;
}

std::uint64_t LayoutPlan::post_bytes() const {
  if (layout == Layout::PSB) return message_bytes;
  return secondary_bytes;
}

std::uint64_t allocation_bytes(std::uint64_t max_message, std::uint64_t max_secondary) {
  // Worst-case slack to reach the alignment, the buffer, the gap, the secondary.
  return (kBufferAlignment - 1) + max_message + kP2abGap + max_secondary;
}

LayoutPlan plan_layout(Layout layout, std::uint64_t message_bytes, std::uint64_t secondary_bytes,
                       std::uintptr_t base_address) {
  const std::uint64_t aligned = (base_address + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  LayoutPlan p{layout, message_bytes, aligned - base_address, 0, 0, 0};
  if (layout == Layout::PCB || layout == Layout::P2AB) {
    p.gap_bytes = layout == Layout::P2AB ? kP2abGap : 0;
    p.secondary_offset = p.mpi_offset + message_bytes + p.gap_bytes;
    p.secondary_bytes = secondary_bytes;
  }
  return p;
}

}  // namespace hetprobe
