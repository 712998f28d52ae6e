// The halo-exchange proxy (probe `halo`): iterations of pack, MPI exchange
// and unpack of a rank's halo messages (halo_layout.hpp), in two variants
// (paper 002 Sec. 3 and 4.1; thesis 003 Sec. 3.3 and 3.4):
//   baseline:       fused pack kernel (one block per message), device
//                   synchronise, MPI sends and receives, fused unpack kernel,
//                   device synchronise (the paper's Algorithm 1, as Comb);
//   notify-stream:  persistent pack and unpack kernels on two streams, one
//                   block per message; the CPU sends each message as soon as
//                   its send-ready flag is set (phase A), then, as each receive
//                   completes (MPI_Testany), sets its unpack-ready flag (phase B).
// Receives are pre-posted MPI_Irecv at the start of every iteration; every
// iteration starts with MPI_Barrier; every unpacked word is checked against
// what its sender must have packed (iteration, sender rank, tag, index).
#pragma once

#include <string>
#include <vector>

#include "hetprobe/clock_fit.hpp"
#include "hetprobe/device.hpp"
#include "hetprobe/halo_layout.hpp"
#include "hetprobe/host_clock.hpp"
#include "hetprobe/mpi_context.hpp"
#include "hetprobe/results.hpp"

namespace hetprobe {

enum class HaloVariant { baseline, notify_stream };
const char* to_string(HaloVariant v);
std::vector<HaloVariant> parse_halo_variants(const std::string& list);  // "all" or a list

struct HaloConfig {
  std::vector<HaloVariant> variants{HaloVariant::baseline, HaloVariant::notify_stream};
  bool blocking_send = false;  // MPI_Send instead of MPI_Isend (+ MPI_Waitall at the end)
  bool testany = false;        // baseline: receives completed with an MPI_Testany loop, not MPI_Waitall
  int iterations = 20;         // timed
  int warmup = 3;              // untimed, first (the first sends pay MPI's handshakes)
  int threads_per_block = 128;
  double timeout_s = 30;
  Json to_json() const;
};

// What one rank measured of one variant. Times in host-clock ns relative to
// the iteration's start (after its barrier); device stamps mapped with `clock`.
struct HaloIteration {
  double total_ns = 0;
  std::vector<double> pack_start_ns, pack_end_ns, send_ns;        // per send (index order)
  std::vector<double> recv_ns, unpack_start_ns, unpack_end_ns;    // per receive (layout order)
};
struct HaloRun {
  HaloVariant variant = HaloVariant::baseline;
  std::vector<HaloIteration> iterations;  // the timed ones
  std::vector<double> pack_device_ns, unpack_device_ns;  // per message: median device duration
  unsigned long long mismatched_words = 0;
  int timeouts = 0;                       // unpacks whose flag never came
  ClockFit clock;                         // device -> host, from syncs before and after
};

// Runs every variant of `config` on this rank (collective over mpi.comm).
std::vector<HaloRun> run_halo(const HaloConfig& config, const HaloLayout& layout, Device& device,
                              const MpiContext& mpi, const HostClock& clock);

// One-way MPI time (RTT/2, median of `reps`) between this rank and `peer` for
// each size; collective: ranks other than the two wait in a barrier.
std::vector<double> mpi_one_way_ns(const MpiContext& mpi, const HostClock& clock, int peer,
                                   const std::vector<std::uint64_t>& sizes, int reps);

}  // namespace hetprobe
