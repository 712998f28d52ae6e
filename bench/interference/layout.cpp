#include "bench/interference/layout.hpp"

#include <algorithm>

#include "base/errors.hpp"

namespace hetprobe {

std::vector<Layout> parse_layout_list(std::string_view text, bool paper) {
  std::vector<Layout> out = kLayoutNames.parse_list(text);
  if (paper && kLayoutNames.names_all(text))
    out.erase(std::remove(out.begin(), out.end(), Layout::OWN), out.end());  // the paper's four
  if (paper && std::find(out.begin(), out.end(), Layout::OWN) != out.end())
    throw usage_error(
        "--layouts OWN with --paper: the paper's writer writes beside the send buffer (SSB, PSB, PCB, "
        "P2AB)");
  std::stable_partition(out.begin(), out.end(), [](Layout l) { return l == Layout::SSB; });
  return out;
}

std::uint64_t LayoutPlan::post_offset() const { return layout == Layout::PSB ? mpi_offset : secondary_offset; }

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
  if (has_secondary(layout)) {
    p.gap_bytes = layout == Layout::P2AB ? kP2abGap : 0;
    p.secondary_offset = p.mpi_offset + message_bytes + p.gap_bytes;
    p.secondary_bytes = secondary_bytes;
  }
  return p;
}

}  // namespace hetprobe
