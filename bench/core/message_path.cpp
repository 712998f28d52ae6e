#include "bench/core/message_path.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

#include "bench/core/sizes.hpp"
#include "topology/net_interfaces.hpp"

namespace hetprobe {

namespace {

std::optional<std::string> string_at(const RecordRef& r, std::string_view path) {
  const Json* j = find_field(r, path);
  if (j == nullptr || j->is_null()) return std::nullopt;
  if (!j->is_string()) bad_field(r, path, "a string or null");
  return j->get<std::string>();
}

std::optional<std::uint64_t> bytes_at(const RecordRef& r, std::string_view path) {
  const Json* j = find_field(r, path);
  if (j == nullptr || j->is_null()) return std::nullopt;
  return field<std::uint64_t>(r, path);
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Whether the network BTL may use `interface`'s `address`: its if_include (names or subnets) where set.
bool allowed(const RecordRef& h, const std::string& carrier, const NetInterface& interface, const NetAddress& address) {
  const std::optional<std::string> include = string_at(h, "mpi.transport.settings.btl_" + carrier + "_if_include");
  if (!include || include->empty()) return true;
  for (const std::string& item : split_commas(*include))
    if (item == interface.name || in_subnet(address.address, item)) return true;
  return false;
}

// The first pair of the two ranks' interfaces on one subnet (the network BTL's may-use list first).
void find_link(const RecordRef& h, const Json& sender, const Json& receiver, MessagePath& p) {
  const auto mine = net_interfaces_from_json(sender.contains("network") ? sender["network"] : Json());
  const auto theirs = net_interfaces_from_json(receiver.contains("network") ? receiver["network"] : Json());
  const std::string carrier = p.carrier.value_or("");
  for (const bool respect_include : {true, false})
    for (const NetInterface& a : mine)
      for (const NetAddress& x : a.addresses)
        for (const NetInterface& b : theirs)
          for (const NetAddress& y : b.addresses) {
            if (!same_subnet(x, y) || (respect_include && !allowed(h, carrier, a, x))) continue;
            p.sender_interface = a.name;
            p.receiver_interface = b.name;
            if (a.speed_mbps && b.speed_mbps) p.link_gbs = std::min(*a.speed_mbps, *b.speed_mbps) / 8000.0;
            return;
          }
}

}  // namespace

MessagePath message_path(const RecordRef& h, int sender, int receiver) {
  MessagePath p;
  const Json* found = find_field(h, "ranks");
  if (found == nullptr) return p;  // a header without ranks says nothing of a path
  const Json& ranks = *found;
  if (!ranks.is_array()) bad_field(h, "ranks", "a list of ranks");
  if (static_cast<std::size_t>(std::max(sender, receiver)) >= ranks.size()) return p;  // one rank: no path
  const RecordRef s{ranks[static_cast<std::size_t>(sender)], h.place};
  const RecordRef r{ranks[static_cast<std::size_t>(receiver)], h.place};
  p.sender_host = field<std::string>(s, "host");
  p.receiver_host = field<std::string>(r, "host");
  p.across_hosts = p.sender_host != p.receiver_host;
  p.library = string_at(h, "mpi.transport.library").value_or("");
  const std::optional<std::string> pml = string_at(h, "mpi.transport.pml");
  if (p.library == "open-mpi" && pml.value_or("ob1") == "ob1") {
    const std::optional<std::string> shm = string_at(h, "mpi.transport.shared_memory_btl");
    const std::optional<std::string> network = string_at(h, "mpi.transport.network_btl");
    if (!p.across_hosts && shm) {
      p.carrier = shm;
      p.eager_limit_bytes = bytes_at(h, "mpi.transport.eager_limit_bytes");
    } else if (network) {
      p.carrier = network;
      p.eager_limit_bytes = bytes_at(h, "mpi.transport.network_eager_limit_bytes");
    }
  } else if (p.library == "open-mpi" && pml) {
    p.carrier = pml;  // ucx, cm: the PML chooses its own protocols
  }
  if (p.across_hosts)
    find_link(h, ranks[static_cast<std::size_t>(sender)], ranks[static_cast<std::size_t>(receiver)], p);
  return p;
}

Json message_path_json(const MessagePath& p, std::uint64_t bytes) {
  return Json{{"sender_host", p.sender_host},
              {"receiver_host", p.receiver_host},
              {"across_hosts", p.across_hosts},
              {"carrier", p.carrier ? Json(*p.carrier) : Json(nullptr)},
              {"eager_limit_bytes", p.eager_limit_bytes ? Json(*p.eager_limit_bytes) : Json(nullptr)},
              {"at_or_above_eager_limit", p.eager_limit_bytes ? Json(bytes >= *p.eager_limit_bytes) : Json(nullptr)},
              {"sender_interface", p.sender_interface ? Json(*p.sender_interface) : Json(nullptr)},
              {"receiver_interface", p.receiver_interface ? Json(*p.receiver_interface) : Json(nullptr)},
              {"link_gbs", p.link_gbs ? Json(*p.link_gbs) : Json(nullptr)}};
}

std::string describe(const MessagePath& p) {
  std::string line = "sender " + p.sender_host + " (rank 0), receiver " + p.receiver_host +
                     " (rank 1): " + (p.across_hosts ? "different hosts" : "one host");
  if (p.carrier) {
    const bool btl = p.library == "open-mpi" && *p.carrier != "ucx" && *p.carrier != "cm";
    line += "; " + std::string(p.library == "open-mpi" ? "Open MPI's " : "") + *p.carrier + (btl ? " BTL" : " PML");
    if (*p.carrier == "tcp") line += " (TCP)";
  }
  if (p.eager_limit_bytes)
    line += ", eager limit " + format_size(*p.eager_limit_bytes) +
            " (a message that reaches it waits for the receiver: rendezvous)";
  if (p.sender_interface) {
    line += "; link " + *p.sender_interface + "-" + *p.receiver_interface;
    if (p.link_gbs) {
      char rate[48];
      std::snprintf(rate, sizeof rate, " at %.3g GB/s (nominal)", *p.link_gbs);
      line += rate;
    }
  }
  return line;
}

}  // namespace hetprobe
