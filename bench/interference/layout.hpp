// Buffer layouts of the interference probe (paper 002 Sec. 4.3). All buffers
// live in one pinned allocation, so their relative placement is exact:
//
//   [align slack][ MPI buffer: N bytes ][ gap ][ secondary: S bytes ]
//                ^ 2 MiB-aligned address
//
//   SSB  the device writes the MPI buffer, ends, is synchronised; then the send
//   PSB  the device writes the MPI buffer, flags, keeps writing it during the send
//   PCB  ... keeps writing a secondary buffer right after the MPI buffer (gap 0)
//   P2AB ... keeps writing a secondary buffer 2 MiB after the MPI buffer's end
//   OWN  ... keeps writing a pinned allocation of its own, as an application's
//        buffers usually are (not the paper's: --paper takes the four above)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/enum_table.hpp"

namespace hetprobe {

enum class Layout { SSB, PSB, PCB, P2AB, OWN };

inline constexpr std::uint64_t kMiB = 1ull << 20;
inline constexpr std::uint64_t kBufferAlignment = 2 * kMiB;  // MPI buffer address alignment
inline constexpr std::uint64_t kP2abGap = 2 * kMiB;          // "2MB padding", read as 2 MiB

// Names are upper case; parsed in any case ("psb").
inline constexpr EnumTable<Layout, 5> kLayoutNames{"layout",
                                                   {{{Layout::SSB, "SSB"},
                                                     {Layout::PSB, "PSB"},
                                                     {Layout::PCB, "PCB"},
                                                     {Layout::P2AB, "P2AB"},
                                                     {Layout::OWN, "OWN"}}},
                                                   EnumCase::ignored};
inline const char* to_string(Layout layout) { return kLayoutNames.name(layout); }
// "SSB", "psb", ... (case-insensitive); throws a usage Error otherwise.
inline Layout parse_layout(std::string_view text) { return kLayoutNames.parse(text); }
// Comma-separated layouts or "all"; order kept, SSB moved first (it is the
// baseline the others are compared with); duplicates are an error. `paper`:
// "all" is the paper's four, and OWN is refused.
std::vector<Layout> parse_layout_list(std::string_view text, bool paper = false);
// Whether the load of a layout lands in an allocation of its own (OWN), not
// in the probe's, beside the send buffer.
inline bool load_in_own_allocation(Layout layout) { return layout == Layout::OWN; }
// Whether a layout has a secondary buffer beside the send buffer, in the
// probe's allocation (PCB, P2AB).
inline bool has_secondary(Layout layout) { return layout == Layout::PCB || layout == Layout::P2AB; }

// Where each buffer starts, as offsets from the allocation's start.
struct LayoutPlan {
  Layout layout;
  std::uint64_t message_bytes;     // N
  std::uint64_t mpi_offset;        // 2 MiB-aligned address
  std::uint64_t secondary_offset;  // PCB/P2AB only, else 0
  std::uint64_t secondary_bytes;   // PCB/P2AB only, else 0
  std::uint64_t gap_bytes;         // P2AB: 2 MiB; PCB: 0
  // What the writer targets after the ready flag: the MPI buffer (PSB), the
  // secondary (PCB, P2AB) or nothing (SSB; OWN's target is not in the allocation).
  std::uint64_t post_offset() const;
  std::uint64_t post_bytes() const;
};

// Bytes one allocation needs so that every layout with message sizes up to
// `max_message` and secondary buffers up to `max_secondary` fits.
std::uint64_t allocation_bytes(std::uint64_t max_message, std::uint64_t max_secondary);

// Plans `layout` inside an allocation that starts at `base_address`.
LayoutPlan plan_layout(Layout layout, std::uint64_t message_bytes, std::uint64_t secondary_bytes,
                       std::uintptr_t base_address);

}  // namespace hetprobe
