// A halo run on every rank, the way its records are made: each setup's
// per-rank record (rank 0's with the slowest rank's time per iteration,
// reduced over the ranks) and, per layout, rank 0's model record, from the
// MPI parameters given or measured and fitted here.
#pragma once

#include <vector>

#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"
#include "bench/halo/halo.hpp"
#include "bench/halo/halo_layout.hpp"
#include "bench/model/halo_model.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"

namespace hetprobe {

// Where the model's MPI parameters come from: given (alpha_s >= 0, with
// beta), or measured with `mpi_reps` ping-pongs per message size; the
// K-model when its R_Cb is set.
struct HaloModelOptions {
  double alpha_s = -1, beta_s_per_byte = -1;
  int mpi_reps = 100;
  KModel kmodel;
};

// Each layout in turn (collective over mpi.comm): `mine` are this rank's
// layouts, `rank0` rank 0's (its messages set the sizes the model measures).
// Every record goes to `sink`.
void measure_halo(const HaloConfig& config, const std::vector<HaloLayout>& mine, const std::vector<HaloLayout>& rank0,
                  const HaloModelOptions& model, Device& device, const HostClock& clock, const MpiContext& mpi,
                  const RecordSink& sink);

}  // namespace hetprobe
