// The header record every results file starts with (and every resumed
// segment repeats): who, where, when, with what, and the node's conditions
// with their warnings (noise.hpp). Schema: docs/results-schema.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"

namespace hetprobe {

inline constexpr const char* kSchemaName = "hetprobe.results";  // every header's "schema"
inline constexpr int kSchemaVersion = 4;  // what changed, and how older files are read: record_upgrade.hpp

struct RunContext {
  std::string probe;                      // "interference"
  std::vector<std::string> command_line;  // argv as given
  std::string device_choice;              // why this backend was used
  Json config;                            // the probe's parameters
  bool resumed = false;
  Json placement;      // this rank's placement (placement_json), read back; null if none
  Json topology;       // this rank's node as hwloc describes it: rank 0's in the header, another rank's in its
                       // entry where it differs
  Json mpi_transport;  // this rank's MPI transport settings (read_mpi_transport); rank 0's goes in the header
  // This rank's pinned buffer (host address), if the probe allocated one: its
  // first byte is rewritten (kept) so that its page is present, and its NUMA
  // node goes in the rank's conditions.
  std::byte* pinned = nullptr;
};

// Collective over mpi.comm; the full record is returned on rank 0 only.
// Every rank samples the CPUs it runs on first (about 16 ms), then rank 0
// reads the node's conditions (about 100 ms).
Json run_header(const RunContext& run, const Device& device, const MpiContext& mpi, const HostClock& clock);

std::string hetprobe_version();
std::string hetprobe_git_revision();
// Now in UTC, ISO 8601: "2026-11-25T10:49:31Z" for records; the basic form
// "20261125T104931Z" for file names (no colons: they break on some file
// systems, in scp and in make).
std::string utc_now_iso8601();
std::string utc_now_for_file_name();

}  // namespace hetprobe
