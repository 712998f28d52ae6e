#include "bench/halo/halo_measure.hpp"

#include <mpi.h>

#include <algorithm>

#include "bench/halo/halo_record.hpp"
#include "bench/halo/halo_speedup.hpp"

namespace hetprobe {

namespace {

// The slowest rank's total per iteration, on rank 0 (empty elsewhere).
std::vector<double> slowest_rank_ns(const HaloRun& run, const MpiContext& mpi) {
  std::vector<double> totals, slowest(run.iterations.size(), 0);
  for (const auto& it : run.iterations) totals.push_back(it.total_ns);
  mpi_check(MPI_Reduce(totals.data(), slowest.data(), static_cast<int>(totals.size()), MPI_DOUBLE, MPI_MAX, 0,
                       mpi.comm),
            "MPI_Reduce");
  return mpi.rank == 0 ? slowest : std::vector<double>{};
}

// The model's MPI parameters for one layout: given, or rank 0's one-way
// times to its first peer over its message sizes and their postal fit.
// Collective (the ping-pongs).
HaloModelSetup model_setup(const HaloModelOptions& model, const HaloLayout& rank0, const HostClock& clock,
                           const MpiContext& mpi) {
  HaloModelSetup setup;
  if (model.alpha_s >= 0) {
    setup.postal = {model.alpha_s, model.beta_s_per_byte};
    setup.given = true;
  } else {
    for (const auto& s : rank0.sends)
      if (std::find(setup.sizes.begin(), setup.sizes.end(), s.bytes) == setup.sizes.end())
        setup.sizes.push_back(s.bytes);
    std::sort(setup.sizes.begin(), setup.sizes.end());
    const int peer = rank0.sends.empty() ? 0 : rank0.sends.front().send_to;
    setup.one_way_ns = mpi_one_way_ns(mpi, clock, peer, setup.sizes, model.mpi_reps);
    if (mpi.rank == 0 && peer != 0 && setup.sizes.size() >= 2) {
      std::vector<double> bytes(setup.sizes.begin(), setup.sizes.end()), secs;
      for (double ns : setup.one_way_ns) secs.push_back(ns * 1e-9);
      setup.postal = fit_postal(bytes, secs);
    }
  }
  if (model.kmodel.r_cb_bytes_per_s > 0) {
    setup.kmodel = model.kmodel;
    setup.kmodel->alpha_s = setup.postal.alpha_s;
  }
  return setup;
}

}  // namespace

void measure_halo(const HaloConfig& config, const std::vector<HaloLayout>& mine, const std::vector<HaloLayout>& rank0,
                  const HaloModelOptions& model, Device& device, const HostClock& clock, const MpiContext& mpi,
                  const RecordSink& sink) {
  for (std::size_t k = 0; k < mine.size(); ++k) {
    const auto runs = run_halo(config, mine[k], k, device, mpi, clock);
    std::vector<std::vector<double>> slowest;
    std::vector<HaloRoundTimes> times;
    for (const HaloRun& run : runs) {
      slowest.push_back(slowest_rank_ns(run, mpi));
      times.push_back(round_times(run, slowest.back()));
    }
    const std::optional<std::size_t> base = strongest_baseline(runs, times);  // rank 0's alone: the slowest rank's
    const std::vector<double> base_medians = base ? times[*base].medians(config.rounds) : std::vector<double>{};
    for (std::size_t i = 0; i < runs.size(); ++i) {
      Json record = halo_record(runs[i], mine[k], config, slowest[i]);
      record["speedup"] = base ? speedup_json(runs[*base].setup.label(), base_medians, times[i].medians(config.rounds))
                               : Json(nullptr);
      sink(record);
    }
    const HaloModelSetup setup = model_setup(model, rank0[k], clock, mpi);
    if (mpi.rank == 0) sink(halo_model_record(setup, mine[k], runs));
  }
}

}  // namespace hetprobe
