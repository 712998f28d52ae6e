// A run across hosts against its link (bench/interference/link_check.hpp):
// a baseline point far above the latency plus the message at the link's rate
// is warned of, one near it is not, and nothing is judged without a link.
#include "bench/interference/link_check.hpp"

#include <gtest/gtest.h>

namespace hetprobe {
namespace {

MessagePath across(std::optional<double> link_gbs) {
  MessagePath p;
  p.sender_host = "hpa", p.receiver_host = "hpb", p.across_hosts = true;
  p.carrier = "tcp", p.eager_limit_bytes = 65536;
  p.sender_interface = "eth0", p.receiver_interface = "eth0";
  p.link_gbs = link_gbs;
  return p;
}

// 1 KiB at 10 us, 64 KiB at 12 ms, 1 MiB at 900 us, over 1.25 GB/s.
const std::vector<BaselinePoint> kPoints{{"1 KiB stream SSB -", 1024, 10e3, false},
                                         {"64 KiB stream SSB -", 65536, 12e6, true},
                                         {"1 MiB stream SSB -", 1048576, 900e3, true}};

TEST(LinkCheck, APointFarAboveTheLatencyPlusTheMessageAtTheLinksRateWarns) {
  const std::vector<std::string> w = link_warnings(across(1.25), kPoints);
  ASSERT_EQ(w.size(), 1u) << "64 KiB: 12 ms against 10 us + 52 us; 1 MiB: 900 us against 849 us";
  EXPECT_NE(w[0].find("warning (64 KiB stream SSB -): median 1.2e+04 us is 192x what the link predicts (62.43 us"),
            std::string::npos)
      << w[0];
  EXPECT_NE(w[0].find("so the send waited for the receiver (rendezvous)"), std::string::npos) << w[0];
}

TEST(LinkCheck, AtTheThresholdNothingWarns) {
  // 4x the prediction exactly is not beyond it.
  const double predicted = 10e3 + 65536 / 1.25;
  const std::vector<BaselinePoint> points{{"1 KiB", 1024, 10e3, false},
                                          {"64 KiB", 65536, kFarAboveLink * predicted, true}};
  EXPECT_TRUE(link_warnings(across(1.25), points).empty());
  std::vector<BaselinePoint> above = points;
  above[1].median_ns *= 1.01;
  EXPECT_EQ(link_warnings(across(1.25), above).size(), 1u);
}

TEST(LinkCheck, NothingIsJudgedWithoutALinkOrOnOneHost) {
  EXPECT_TRUE(link_warnings(across(std::nullopt), kPoints).empty());
  MessagePath one_host = across(1.25);
  one_host.across_hosts = false;
  EXPECT_TRUE(link_warnings(one_host, kPoints).empty());
  EXPECT_TRUE(link_warnings(across(1.25), {}).empty());
}

}  // namespace
}  // namespace hetprobe
