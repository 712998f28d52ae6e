// This host's network interfaces as the kernel lists them (getifaddrs): their
// addresses and the link speed sysfs reports (/sys/class/net/<name>/speed).
// A results header carries each rank's, so that the link between two ranks on
// different hosts is read back from the file: the interfaces of one subnet.
// Vendor-neutral; loopback left out. A veth or bridge reports a nominal speed
// (10 Gb/s for a veth), not what it moves.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/small_file.hpp"  // sysfs_root()

namespace hetprobe {

struct NetAddress {
  std::string address;  // "10.200.0.1", "fe80::1"
  int prefix = 0;       // the subnet's length in bits: 24 for a /24
  bool ipv6 = false;
};

struct NetInterface {
  std::string name;  // "eth0"
  std::vector<NetAddress> addresses;
  std::optional<double> speed_mbps;  // none: no speed (down, virtual, unknown: sysfs says -1)
};

// The interfaces that are up, with an address other than an IPv6 link-local
// one, and not loopback, by name; speeds read under `root`. Never throws:
// none where getifaddrs fails.
std::vector<NetInterface> read_net_interfaces(const std::string& root = sysfs_root());

// [{"name", "addresses": ["10.200.0.1/24", ...], "speed_mbps"}] (docs/results-schema.md, Rank).
nlohmann::json net_interfaces_json(const std::vector<NetInterface>& interfaces);
std::vector<NetInterface> net_interfaces_from_json(const nlohmann::json& j);  // what it cannot read left out

// Whether IPv4 address `a` lies in `subnet` ("10.200.0.0/24", or a host "10.200.0.1" as /32).
bool in_subnet(const std::string& a, const std::string& subnet);
// Whether two addresses are of one subnet (the shorter prefix of the two); IPv4 only.
bool same_subnet(const NetAddress& a, const NetAddress& b);

}  // namespace hetprobe
