#include <gtest/gtest.h>

#include "base/errors.hpp"
#include "bench/interference/layout.hpp"

namespace hetprobe {
namespace {

TEST(Layout, ParsesNamesCaseInsensitivelyAndAll) {
  EXPECT_EQ(parse_layout("p2ab"), Layout::P2AB);
  EXPECT_EQ(parse_layout_list("all"),
            (std::vector<Layout>{Layout::SSB, Layout::PSB, Layout::PCB, Layout::P2AB, Layout::OWN}));
  // --paper: its all is the paper's four, and OWN (not the paper's) is refused.
  EXPECT_EQ(parse_layout_list("ALL", true), (std::vector<Layout>{Layout::SSB, Layout::PSB, Layout::PCB, Layout::P2AB}));
  EXPECT_THROW(parse_layout_list("SSB,OWN", true), Error);
  EXPECT_EQ(parse_layout_list("own,SSB"), (std::vector<Layout>{Layout::SSB, Layout::OWN}));
  // SSB, the baseline, always runs first.
  EXPECT_EQ(parse_layout_list("PCB,SSB"), (std::vector<Layout>{Layout::SSB, Layout::PCB}));
}

TEST(Layout, RejectsUnknownAndDuplicateLayouts) {
  EXPECT_THROW(parse_layout_list("SSB,XYZ"), Error);
  EXPECT_THROW(parse_layout_list("PCB,pcb"), Error);
  EXPECT_THROW(parse_layout_list(""), Error);
  try {
    parse_layout("XYZ");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("XYZ"), std::string::npos);
  }
}

class LayoutAtBase : public ::testing::TestWithParam<std::uintptr_t> {};

TEST_P(LayoutAtBase, MpiBufferIs2MiBAlignedAndEverythingFits) {
  const std::uintptr_t base = GetParam();
  const std::uint64_t n = 3 * kMiB + 8, s = 5 * kMiB;
  const std::uint64_t alloc = allocation_bytes(n, s);
  for (Layout l : {Layout::SSB, Layout::PSB, Layout::PCB, Layout::P2AB}) {
    const LayoutPlan p = plan_layout(l, n, s, base);
    EXPECT_EQ((base + p.mpi_offset) % kBufferAlignment, 0u) << to_string(l);
    EXPECT_LT(p.mpi_offset, kBufferAlignment);
    EXPECT_LE(p.mpi_offset + n, alloc);
    if (l == Layout::PCB) {
      EXPECT_EQ(p.secondary_offset, p.mpi_offset + n);  // immediately after
      EXPECT_EQ(p.gap_bytes, 0u);
    }
    if (l == Layout::P2AB) {
      EXPECT_EQ(p.secondary_offset, p.mpi_offset + n + 2 * kMiB);
      EXPECT_EQ(p.gap_bytes, 2 * kMiB);
    }
    if (l == Layout::PCB || l == Layout::P2AB) {
      EXPECT_EQ(p.secondary_bytes, s);
      EXPECT_LE(p.secondary_offset + s, alloc);
      EXPECT_EQ(p.post_offset(), p.secondary_offset);
      EXPECT_EQ(p.post_bytes(), s);
    }
  }
  EXPECT_EQ(plan_layout(Layout::PSB, n, s, base).post_offset(), plan_layout(Layout::PSB, n, s, base).mpi_offset);
  EXPECT_EQ(plan_layout(Layout::PSB, n, s, base).post_bytes(), n);
  EXPECT_EQ(plan_layout(Layout::SSB, n, s, base).post_bytes(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Bases, LayoutAtBase,
                         ::testing::Values(0x7f0000000000u, 0x7f0000001000u, 0x7f00001ff000u, 0x7f0000200000u - 4096));

}  // namespace
}  // namespace hetprobe
