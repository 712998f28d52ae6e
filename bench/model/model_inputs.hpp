// What the node model reads: the interference series of one `hetprobe
// characterize` run (its launch-1 interference.jsonl and, when there,
// interference-rate.jsonl; or one interference results file), and the node
// they were measured on.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/results.hpp"
#include "bench/model/node_model.hpp"

namespace hetprobe {

struct NodeRun {
  std::vector<ResultsFile> files;  // interference results, launch 1
  Json node;                       // {"host", "device"}: where they were measured
};

// A characterize run directory or an interference results file. A usage
// Error names a path that is neither, a directory without interference
// results, and files of two nodes.
NodeRun read_node_run(const std::filesystem::path& path);

// The node of a header: {"host": its host, "device": its device's name}.
Json node_of(const Json& header);

// The fit's series: SSB points (idle) and write or read loads (the traffic
// a halo's pack and unpack put on pinned memory) of every layout but PSB,
// warm sends only (no --gap). Points without rounds are left out.
struct FitInputs {
  std::vector<IdleSeries> idle;
  std::vector<LoadedSeries> loaded;
  std::optional<std::uint64_t> eager_limit_bytes;  // the SSB points' MPI path's (mpi_path.eager_limit_bytes)
};
FitInputs fit_inputs(const NodeRun& run);

}  // namespace hetprobe
