// How MPI carries a message between two ranks, read from a header
// (bench/core/message_path.hpp), and the subnets it matches interfaces by
// (topology/net_interfaces.hpp).
#include "bench/core/message_path.hpp"

#include <gtest/gtest.h>

#include "base/errors.hpp"
#include "topology/net_interfaces.hpp"

namespace hetprobe {
namespace {

Json rank(int r, const std::string& host, const Json& network) {
  return {{"rank", r}, {"host", host}, {"network", network}};
}

Json interface(const std::string& name, const std::string& address, const Json& speed_mbps) {
  return {{"name", name}, {"addresses", {address}}, {"speed_mbps", speed_mbps}};
}

// Open MPI 4 with ob1: vader on one host, tcp between hosts (64 KiB eager limit).
Json header(const std::string& a, const std::string& b, const Json& net_a = Json::array(),
            const Json& net_b = Json::array()) {
  return {{"record", "header"},
          {"ranks", {rank(0, a, net_a), rank(1, b, net_b)}},
          {"mpi",
           {{"transport",
             {{"library", "open-mpi"},
              {"pml", "ob1"},
              {"shared_memory_btl", "vader"},
              {"eager_limit_bytes", 4096},
              {"network_btl", "tcp"},
              {"network_eager_limit_bytes", 65536},
              {"settings", Json::object()}}}}}};
}

MessagePath path_of(const Json& h) { return message_path({h, "test header"}); }

TEST(MessagePath, OneHostTakesTheSharedMemoryBtlAndItsLimit) {
  const MessagePath p = path_of(header("node1", "node1"));
  EXPECT_FALSE(p.across_hosts);
  EXPECT_EQ(p.carrier, "vader");
  EXPECT_EQ(p.eager_limit_bytes, 4096u);
  EXPECT_FALSE(p.sender_interface) << "no link on one host";
  const Json j = message_path_json(p, 4096);
  EXPECT_EQ(j["at_or_above_eager_limit"], true) << "a message of the limit's size goes by rendezvous";
  EXPECT_EQ(message_path_json(p, 4095)["at_or_above_eager_limit"], false);
  EXPECT_NE(describe(p).find("one host"), std::string::npos) << describe(p);
}

TEST(MessagePath, AcrossHostsTakesTheNetworkBtlAndTheLinkOfTheSharedSubnet) {
  const Json a = {interface("eth1", "192.168.1.5/24", 25000), interface("eth0", "10.200.0.1/24", 10000)};
  const Json b = {interface("ib0", "172.16.0.9/16", 100000), interface("eth0", "10.200.0.2/24", 1000)};
  const MessagePath p = path_of(header("hpa", "hpb", a, b));
  EXPECT_TRUE(p.across_hosts);
  EXPECT_EQ(p.sender_host, "hpa");
  EXPECT_EQ(p.receiver_host, "hpb");
  EXPECT_EQ(p.carrier, "tcp");
  EXPECT_EQ(p.eager_limit_bytes, 65536u);
  EXPECT_EQ(p.sender_interface, "eth0");
  EXPECT_EQ(p.receiver_interface, "eth0");
  ASSERT_TRUE(p.link_gbs);
  EXPECT_DOUBLE_EQ(*p.link_gbs, 1000 / 8000.0) << "the slower interface's 1 Gb/s";
  const Json j = message_path_json(p, 1024);
  EXPECT_EQ(j["across_hosts"], true);
  EXPECT_EQ(j["at_or_above_eager_limit"], false);
  EXPECT_EQ(message_path_json(p, 65536)["at_or_above_eager_limit"], true);
  const std::string text = describe(p);
  EXPECT_NE(text.find("sender hpa (rank 0), receiver hpb (rank 1): different hosts; Open MPI's tcp BTL (TCP)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("eager limit 64 KiB"), std::string::npos) << text;
}

TEST(MessagePath, TheNetworkBtlsIncludeListChoosesAmongSharedSubnets) {
  const Json a = {interface("eth0", "10.0.0.1/24", 1000), interface("eth1", "10.1.0.1/24", 100000)};
  const Json b = {interface("eth0", "10.0.0.2/24", 1000), interface("eth1", "10.1.0.2/24", 100000)};
  Json h = header("a", "b", a, b);
  EXPECT_EQ(path_of(h).sender_interface, "eth0") << "without a list: the first shared subnet";
  h["mpi"]["transport"]["settings"]["btl_tcp_if_include"] = "10.1.0.0/16";
  EXPECT_EQ(path_of(h).sender_interface, "eth1");
  h["mpi"]["transport"]["settings"]["btl_tcp_if_include"] = "eth0";
  EXPECT_EQ(path_of(h).sender_interface, "eth0");
}

TEST(MessagePath, WhatTheHeaderDoesNotSayIsUnknown) {
  Json h = header("a", "b");  // no interfaces: no link
  EXPECT_FALSE(path_of(h).link_gbs);
  EXPECT_FALSE(path_of(h).sender_interface);
  h["mpi"]["transport"]["pml"] = "ucx";
  EXPECT_EQ(path_of(h).carrier, "ucx");
  EXPECT_FALSE(path_of(h).eager_limit_bytes) << "UCX chooses its own protocols";
  h["mpi"]["transport"] = {{"library", "mpich"}};
  EXPECT_FALSE(path_of(h).carrier);
  EXPECT_TRUE(message_path_json(path_of(h), 1)["at_or_above_eager_limit"].is_null());
  h.erase("mpi");  // a file from before the transport
  EXPECT_FALSE(path_of(h).carrier);
}

TEST(MessagePath, AMalformedRankIsTheFilesFault) {
  Json h = header("a", "b");
  h["ranks"][1]["host"] = 7;
  EXPECT_THROW(path_of(h), Error);
}

TEST(NetInterfaces, SubnetsAreComparedByTheShorterPrefix) {
  EXPECT_TRUE(in_subnet("10.200.0.7", "10.200.0.0/24"));
  EXPECT_FALSE(in_subnet("10.201.0.7", "10.200.0.0/24"));
  EXPECT_TRUE(in_subnet("10.200.0.7", "10.200.0.7"));
  EXPECT_FALSE(in_subnet("fe80::1", "10.200.0.0/24"));
  EXPECT_TRUE(same_subnet({"10.0.1.1", 16, false}, {"10.0.2.1", 24, false}));
  EXPECT_FALSE(same_subnet({"10.0.1.1", 24, false}, {"10.0.2.1", 24, false}));
  EXPECT_FALSE(same_subnet({"fe80::1", 64, true}, {"fe80::2", 64, true})) << "IPv4 only";
}

TEST(NetInterfaces, JsonRoundTrip) {
  const std::vector<NetInterface> in{{"eth0", {{"10.200.0.1", 24, false}, {"fe80::1", 64, true}}, 10000.0},
                                     {"veth9", {{"192.168.0.1", 30, false}}, std::nullopt}};
  const Json j = net_interfaces_json(in);
  EXPECT_EQ(j[0]["addresses"], Json({"10.200.0.1/24", "fe80::1/64"}));
  EXPECT_TRUE(j[1]["speed_mbps"].is_null());
  const std::vector<NetInterface> out = net_interfaces_from_json(j);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].addresses[1].address, "fe80::1");
  EXPECT_TRUE(out[0].addresses[1].ipv6);
  EXPECT_EQ(out[1].addresses[0].prefix, 30);
  EXPECT_EQ(out[0].speed_mbps, 10000.0);
}

TEST(NetInterfaces, ThisHostsAreReadWithoutLoopbackOrLinkLocalAddresses) {
  for (const NetInterface& n : read_net_interfaces()) {
    EXPECT_NE(n.name, "lo");
    EXPECT_FALSE(n.addresses.empty()) << n.name;
    for (const NetAddress& a : n.addresses) EXPECT_FALSE(a.ipv6 && a.address.rfind("fe80:", 0) == 0) << a.address;
  }
}

}  // namespace
}  // namespace hetprobe
