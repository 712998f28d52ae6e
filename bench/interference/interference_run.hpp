// What an interference run holds and does between the session frame's steps
// (probe_session.hpp): the pinned memory and loads it allocates, the points
// a resumed file already holds, the host memory reference, the sweep with
// each point's record, and the live table.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"
#include "bench/interference/interference.hpp"
#include "bench/interference/interference_table.hpp"
#include "bench/load/load_set.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"
#include "topology/topology.hpp"

namespace hetprobe {

// What a run holds between the session's steps.
struct InterferenceRun {
  const Topology* topo = nullptr;
  PinnedBuffer memory;
  std::unique_ptr<LoadSet> loads;
  std::set<PointKey> done;  // points already in a resumed file
  MessagePath path;         // rank 0: from its header, once written (each point's mpi_path)
  InterferenceTable table{stdout};
};

// The largest load buffer any point uses.
std::uint64_t max_load_bytes(const InterferenceConfig& c);

// Host memory this rank will take: the pinned buffer, the other load GPUs'
// buffers, the two payloads (device memory; on the host backend host memory),
// and rank 0's STREAM arrays and --gap sweep:SIZE buffer.
std::uint64_t rank_host_bytes(const InterferenceConfig& c, int rank, const Topology& topo);

// The done points as text for every rank (rank 0 reads them), and back ("" : none).
std::string done_to_string(const std::set<PointKey>& done);
std::set<PointKey> done_from_string(const std::string& s);

// Takes what the run holds, after the node's memory is checked and the rank
// bound (so the pages land on the bound NUMA node); returns the pinned buffer.
const PinnedBuffer* allocate(InterferenceRun& run, const InterferenceConfig& config, Device& device,
                             const Topology& topo, const MpiContext& mpi);

// The host memory reference (config.host_stream), then every point not done;
// rank 0 gives each record to `sink`. Collective over mpi.comm.
void measure(InterferenceRun& run, const InterferenceConfig& config, Device& device, const HostClock& clock,
             const MpiContext& mpi, const RecordSink& sink);

// A record's progress line: a point's key, median and ratio to SSB; the host
// memory record's STREAM triad.
std::string interference_record_label(const Json& record);

}  // namespace hetprobe
