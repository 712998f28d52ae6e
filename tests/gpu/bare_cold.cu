// The barest reference for hetprobe's cold sends (interference --gap): rank 0
// times MPI_Send to rank 1 on one node, right after spinning GAP_US (cold) or
// right away (warm), with no hetprobe code. CUDA only allocates the send
// buffer (pinned and mapped, as hetprobe's); the GPU stays idle.
//   mpirun -np 2 bare_cold ROUNDS REPS GAP_US SIZE...     (sizes in bytes)
// Per size, ROUNDS rounds of one untimed warm-up send, then REPS cold and REPS
// warm sends in a shuffled order (fixed seed: both ranks draw the same). Each
// send: the CPU writes the payload, rank 1 pre-posts its receive, barrier, the
// sender spins (cold only), then times MPI_Send. The ratio is each round's
// cold median over the same round's warm median. Prints, on rank 0:
//   # bare_cold: rounds R reps N gap G us; rank 0 on cpu X, rank 1 on cpu Y
//   bare-cold SIZE cold_median_us warm_median_us ratio_median ci95_low ci95_high
// (the medians over all sends of a kind; the ratio's median over the rounds and
// its order-statistic 95% interval), so placement and numbers compare with hetprobe's.
#include <sched.h>

#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "bare.cuh"

using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 0, reps = argc > 2 ? std::atoi(argv[2]) : 0;
  const double gap_us = argc > 3 ? std::atof(argv[3]) : 0;
  if (argc < 5 || ranks != 2 || rounds < 1 || reps < 1) {
    if (rank == 0) std::fprintf(stderr, "usage: mpirun -np 2 bare_cold ROUNDS REPS GAP_US SIZE...\n");
    MPI_Finalize();
    return 2;
  }
  std::vector<long> sizes;
  for (int i = 4; i < argc; ++i) sizes.push_back(std::atol(argv[i]));
  const long max_size = *std::max_element(sizes.begin(), sizes.end());
  char* buf = nullptr;
  cudaSetDevice(0);
  if (cudaHostAlloc(reinterpret_cast<void**>(&buf), max_size, cudaHostAllocMapped) != cudaSuccess) {
    std::fprintf(stderr, "bare_cold: rank %d: cudaHostAlloc of %ld bytes failed\n", rank, max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::memset(buf, 0x33, max_size);
  // Where each rank runs, after CUDA's start (which may move it).
  int cpu = sched_getcpu(), cpus[2] = {};
  MPI_Gather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("# bare_cold: rounds %d reps %d gap %.0f us; rank 0 on cpu %d, rank 1 on cpu %d\n", rounds, reps,
                gap_us, cpus[0], cpus[1]);
    std::printf("# bare-cold size_bytes cold_median_us warm_median_us ratio_median ci95_low ci95_high\n");
  }
  std::mt19937_64 rng(12345);  // the same orders on both ranks
  unsigned sends = 0;          // the payload's value changes every send
  for (long n : sizes) {
    std::vector<double> cold_all, warm_all, ratio;
    for (int r = 0; r < rounds; ++r) {
      std::vector<char> order(2 * reps, 0);  // 1: cold
      std::fill(order.begin(), order.begin() + reps, 1);
      std::shuffle(order.begin(), order.end(), rng);
      order.insert(order.begin(), 2);  // 2: the untimed warm-up (warm)
      std::vector<double> cold, warm;
      for (char kind : order) {
        if (rank == 0) std::memset(buf, 0x40 + (++sends & 63), n);
        MPI_Request req;
        if (rank == 1) MPI_Irecv(buf, static_cast<int>(n), MPI_BYTE, 0, 0, MPI_COMM_WORLD, &req);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0 && kind == 1) {
          const auto until = Clock::now() + std::chrono::duration<double, std::micro>(gap_us);
          while (Clock::now() < until) {
          }
        }
        const auto t0 = Clock::now();
        if (rank == 0) MPI_Send(buf, static_cast<int>(n), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        else MPI_Wait(&req, MPI_STATUS_IGNORE);
        const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        if (kind == 1) cold.push_back(us);
        if (kind == 0) warm.push_back(us);
      }
      cold_all.insert(cold_all.end(), cold.begin(), cold.end());
      warm_all.insert(warm_all.end(), warm.begin(), warm.end());
      ratio.push_back(median(cold) / median(warm));
    }
    if (rank != 0) continue;
    const Interval ci = median_ci95(ratio);
    std::printf("bare-cold %ld %.3f %.3f %.4f %.4f %.4f\n", n, median(cold_all), median(warm_all), median(ratio), ci.lo,
                ci.hi);
    std::fflush(stdout);
  }
  cudaFreeHost(buf);
  MPI_Finalize();
  return 0;
}
