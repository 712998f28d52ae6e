// The gpus probe: every GPU of a node measured in rounds, each round visiting
// the GPUs (one rank each) in a seeded shuffled order while the others wait,
// so that a transient falls on one round and not on one GPU. A visit makes
// its own pinned buffer and flags, so where they land is sampled too. Rank 0
// writes every visit as it is gathered, then the verdict of the run's rounds
// (node_verdict.hpp). The numbers: gpu_metrics.hpp.
#pragma once

#include <cstdint>

#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"
#include "bench/gpus/gpu_metrics.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"

namespace hetprobe {

struct GpusConfig {
  int rounds = 6;                        // visits of every GPU
  std::uint64_t bytes = 64ull << 20;     // each plain pass's pinned buffer
  int reps = 3;                          // timed passes of each kind per visit (their median)
  int exchanges = 1000;                  // flag round trips per visit (their median)
  int launch_samples = 200;              // launch + device synchronise per visit (their median)
  int warmup = 20;                       // round trips and launches before each visit's timed ones
  std::uint64_t seed = 1;                // the rounds' orders
  GpusPhase phase = GpusPhase::measure;  // what the rounds are for
  double tolerance = 0.10;               // the verdict this launch writes
  double timeout_s = 30;                 // any one wait on the device
  Json to_json() const;
};

// Runs the rounds on every rank (collective over mpi.comm, one rank per
// device); `sink` (rank 0) gets a gpu_round record per visit, a round at a
// time, then the gpus_verdict record of this launch's rounds.
void run_gpus(const GpusConfig& config, Device& device, const HostClock& clock, const MpiContext& mpi,
              const RecordSink& sink);

}  // namespace hetprobe
