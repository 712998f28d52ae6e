#include "topology/net_interfaces.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <map>

namespace hetprobe {

namespace {

int prefix_bits(const sockaddr* mask) {
  if (mask == nullptr) return 0;
  const auto* bytes =
      mask->sa_family == AF_INET
          ? reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in*>(mask)->sin_addr)
          : reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in6*>(mask)->sin6_addr);
  const int n = mask->sa_family == AF_INET ? 4 : 16;
  int bits = 0;
  for (int i = 0; i < n; ++i) bits += std::popcount(static_cast<unsigned>(bytes[i]));
  return bits;
}

std::optional<std::uint32_t> ipv4(const std::string& text) {
  in_addr a{};
  if (inet_pton(AF_INET, text.c_str(), &a) != 1) return std::nullopt;
  return ntohl(a.s_addr);
}

bool same_prefix(std::uint32_t a, std::uint32_t b, int prefix) {
  if (prefix <= 0) return true;
  const std::uint32_t mask = prefix >= 32 ? 0xffffffffu : ~(0xffffffffu >> prefix);
  return (a & mask) == (b & mask);
}

// /sys/class/net/<name>/speed: Mb/s; -1 (or an error: a link that is down) for none.
std::optional<double> link_speed_mbps(const std::string& root, const std::string& name) {
  const auto line = read_first_line(root + "/class/net/" + name + "/speed");
  if (!line) return std::nullopt;
  char* end = nullptr;
  const double mbps = std::strtod(line->c_str(), &end);
  if (end == line->c_str() || *end != '\0' || !(mbps > 0)) return std::nullopt;
  return mbps;
}

}  // namespace

std::vector<NetInterface> read_net_interfaces(const std::string& root) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return {};
  std::map<std::string, NetInterface> by_name;
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || (i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP)) continue;
    const int family = i->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw = family == AF_INET
                          ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr)
                          : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)->sin6_addr);
    if (inet_ntop(family, raw, text, sizeof text) == nullptr) continue;
    // IPv6 link-local addresses (fe80::/10) are on every interface, a container's veths too, and
    // reach no other host's subnet: left out, so such an interface is listed only with another address.
    const auto* v6 = reinterpret_cast<const unsigned char*>(raw);
    if (family == AF_INET6 && v6[0] == 0xfe && (v6[1] & 0xc0) == 0x80) continue;
    NetInterface& n = by_name[i->ifa_name];
    n.name = i->ifa_name;
    n.addresses.push_back({text, prefix_bits(i->ifa_netmask), family == AF_INET6});
  }
  freeifaddrs(list);
  std::vector<NetInterface> out;
  for (auto& [name, n] : by_name) {
    n.speed_mbps = link_speed_mbps(root, name);
    out.push_back(std::move(n));
  }
  return out;
}

nlohmann::json net_interfaces_json(const std::vector<NetInterface>& interfaces) {
  nlohmann::json out = nlohmann::json::array();
  for (const NetInterface& n : interfaces) {
    nlohmann::json addresses = nlohmann::json::array();
    for (const NetAddress& a : n.addresses) addresses.push_back(a.address + "/" + std::to_string(a.prefix));
    out.push_back({{"name", n.name},
                   {"addresses", addresses},
                   {"speed_mbps", n.speed_mbps ? nlohmann::json(*n.speed_mbps) : nlohmann::json(nullptr)}});
  }
  return out;
}

std::vector<NetInterface> net_interfaces_from_json(const nlohmann::json& j) {
  std::vector<NetInterface> out;
  if (!j.is_array()) return out;
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) continue;
    NetInterface n;
    n.name = e["name"].get<std::string>();
    if (const auto s = e.find("speed_mbps"); s != e.end() && s->is_number()) n.speed_mbps = s->get<double>();
    if (const auto list = e.find("addresses"); list != e.end() && list->is_array())
      for (const auto& a : *list) {
        if (!a.is_string()) continue;
        const std::string text = a.get<std::string>();
        const std::size_t slash = text.find('/');
        NetAddress address{text.substr(0, slash), 0, text.find(':') != std::string::npos};
        if (slash != std::string::npos) address.prefix = std::atoi(text.c_str() + slash + 1);
        n.addresses.push_back(address);
      }
    out.push_back(std::move(n));
  }
  return out;
}

bool in_subnet(const std::string& a, const std::string& subnet) {
  const std::size_t slash = subnet.find('/');
  const auto x = ipv4(a), net = ipv4(subnet.substr(0, slash));
  if (!x || !net) return false;
  const int prefix = slash == std::string::npos ? 32 : std::atoi(subnet.c_str() + slash + 1);
  return prefix >= 0 && prefix <= 32 && same_prefix(*x, *net, prefix);
}

bool same_subnet(const NetAddress& a, const NetAddress& b) {
  if (a.ipv6 || b.ipv6) return false;
  const auto x = ipv4(a.address), y = ipv4(b.address);
  return x && y && same_prefix(*x, *y, std::min(a.prefix, b.prefix));
}

}  // namespace hetprobe
