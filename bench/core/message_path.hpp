// How MPI moves a message from one rank of a run to another, as the run's
// header tells: on one host or across hosts, what carries it (Open MPI's ob1:
// the shared-memory BTL on one host, the network BTL across hosts; else the
// PML), that carrier's eager limit (a larger message waits for the receiver:
// rendezvous) and, across hosts, the link the two ranks share: the interfaces
// of one subnet, at the slower one's speed. Read from the header alone, so a
// results file's table says it too. Schema: docs/results-schema.md, mpi_path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "bench/core/record_field.hpp"
#include "bench/core/results.hpp"

namespace hetprobe {

struct MessagePath {
  std::string sender_host, receiver_host;
  bool across_hosts = false;
  std::string library;                             // mpi.transport.library: "open-mpi", ...; "" without one
  std::optional<std::string> carrier;              // "tcp", "vader", "sm", "ucx", ...; none where unknown
  std::optional<std::uint64_t> eager_limit_bytes;  // the carrier's; none where unknown
  std::optional<std::string> sender_interface, receiver_interface;  // across hosts, where found
  std::optional<double> link_gbs;  // the slower interface's nominal speed, GB/s; none where unknown
};

// The path from rank `sender` to rank `receiver` (indices into the header's
// ranks); an empty one (no hosts) where the header has no such ranks. Throws
// a usage Error for a header whose ranks are malformed.
MessagePath message_path(const RecordRef& header, int sender = 0, int receiver = 1);

// A point's mpi_path object for a message of `bytes`: the hosts, the carrier,
// its eager limit and whether `bytes` reaches it, the link.
Json message_path_json(const MessagePath& path, std::uint64_t bytes);

// One line for a table's heading: "sender hpa (rank 0), receiver hpb (rank 1):
// different hosts; Open MPI's tcp BTL, eager limit 64 KiB (larger messages
// wait for the receiver: rendezvous); link eth0-eth0 at 1.25 GB/s (nominal)".
std::string describe(const MessagePath& path);

}  // namespace hetprobe
