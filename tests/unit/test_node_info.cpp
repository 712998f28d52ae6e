#include <gtest/gtest.h>

#include "topology/node_info.hpp"

namespace hetprobe {
namespace {

TEST(NodeInfo, FormatsCpuListsCompactly) {
  EXPECT_EQ(format_cpu_list({true, true, true, true, false, false, false, false, true}), "0-3,8");
  EXPECT_EQ(format_cpu_list({false, true, false, true, true}), "1,3-4");
  EXPECT_EQ(format_cpu_list({false, false}), "");
}

TEST(NodeInfo, ReadsBackTheAffinityAndTheNode) {
  const NodeInfo n = read_node_info();
  EXPECT_GT(n.online_cpus, 0);
  EXPECT_GT(n.page_size_bytes, 0);
  EXPECT_FALSE(n.hostname.empty());
  EXPECT_FALSE(cpu_affinity_list().empty());  // at least the CPU this test runs on
}

}  // namespace
}  // namespace hetprobe
