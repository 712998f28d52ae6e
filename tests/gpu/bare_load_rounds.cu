// The bare reference for hetprobe's interference ratios: rank 0 times MPI_Send
// to rank 1 while GPU 0 (GPUs 0..k-1 with BARE_LOAD_GPUS=k) runs a full grid
// over 512 MiB of pinned host memory, with no hetprobe code. Loads: idle, write
// (16-byte stores), read (16-byte loads), poll (every thread of the grid polls
// one pinned flag, a kernel waiting on the CPU). Each round visits the four in
// a shuffled order (the same on both ranks); a visit starts the kernels, waits
// 2 ms, then per send: prepares the payload, pre-posts the receive, barrier,
// times MPI_Send. The ratio is each round's loaded median over the same
// round's idle median.
//   [BARE_LOAD_GPUS=k] [BARE_LOAD_NEAR=1] [BARE_CHUNK_BYTES=C] mpirun -np 2 bare_load_rounds PAYLOAD ROUNDS REPS
//   GAP_US SIZE...
// PAYLOAD: none (the buffer is never rewritten: warm), cpu (the CPU memsets
// it before each send), cpuloop (the CPU stores a pattern, 8 bytes at a time,
// as hetprobe's payload is written), gpu (the copy engine writes it from
// device memory before each send). GAP_US: the sender spins this long before
// each timed send.
// BARE_LOAD_NEAR=1: the load's 512 MiB start 2 MiB after the send buffer's
// end, in one allocation (hetprobe's P2AB), instead of an allocation of their own.
// BARE_LOAD_GPUS=k (default 1): GPUs 0..k-1 load at once (hetprobe's
// --load-gpus), each on its own stream over its own 512 MiB, pinned while it
// is the current GPU, with its own stop flag and byte counter (with
// BARE_LOAD_NEAR=1 GPU 0's stays after the send buffer); rank 1 uses GPU 0 only.
// BARE_RECEIVER_GPU=g (default 0): rank 1's context and receive buffer are
// GPU g's, as hetprobe's receiver is its own GPU's (rank 1, GPU 1).
// BARE_REALLOC=1: before every round after the first, the send buffer and
// each GPU's load memory are freed and pinned afresh, so that one launch
// samples where pinned pages land (not with BARE_LOAD_NEAR=1).
// BARE_LOADS=write[,read][,poll] (default all three): the loads each round
// visits beside idle; hetprobe's k-GPU run visits idle and write alone.
// BARE_CHUNK_BYTES=C (a multiple of 512): write/read in chunks of C bytes per
// warp, as hetprobe's load workers move theirs, instead of grid-stride.
// Prints one line per size and load: median ratio, its order-statistic 95%
// interval, the idle median (us), and the kernels' rate over its visits (the
// sum over the GPUs).
#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bare.cuh"

enum Load { kIdle, kWrite, kRead, kPoll };
const char* kNames[] = {"idle", "write", "read", "poll"};

// write/read: grid-stride 16-byte units, pass after pass (or, with
// BARE_CHUNK_BYTES=C, each warp C contiguous bytes at a time, its next chunk
// a grid's worth of chunks further, as hetprobe's load workers move theirs);
// block leaders count bytes and read the stop flag every 64 units. poll:
// every thread reads the flag until it is set, as a kernel waiting on the host does.
__global__ void load(int kind, ulonglong2* buf, unsigned long long units, const volatile int* stop,
                     unsigned long long* bytes, unsigned long long* sink, unsigned long long chunk_units) {
  __shared__ int halt;
  if (kind == kPoll) {
    unsigned long long polls = 0;
    while (*stop == 0) ++polls;
    atomicAdd(bytes, 8 * polls);
    return;
  }
  const unsigned long long step = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long thread = blockIdx.x * blockDim.x + threadIdx.x, warp = thread / 32, lane = thread % 32;
  const unsigned long long chunks = chunk_units ? units / chunk_units : 1, steps = chunk_units / 32;
  unsigned long long acc = 0;
  for (unsigned long long i = 1;; ++i) {
    const unsigned long long k = i - 1;
    const unsigned long long u = chunk_units
                                     ? ((warp + k / steps * (step / 32)) % chunks) * chunk_units + k % steps * 32 + lane
                                     : (thread + k * step) % units;
    if (kind == kWrite) {
      buf[u] = make_ulonglong2(i, i);
    } else {
      const ulonglong2 v = __ldcv(buf + u);  // not cached: every pass reads host memory
      acc ^= v.x ^ v.y;
    }
    if (i % 64 == 0) {
      if (threadIdx.x == 0) {
        atomicAdd(bytes, 64ull * 16 * blockDim.x);
        halt = *stop;
      }
      __syncthreads();
      if (halt) break;
    }
  }
  if (acc == 42) atomicAdd(sink, acc);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 6) {
    if (rank == 0) std::fprintf(stderr, "usage: bare_load_rounds none|cpu|cpuloop|gpu ROUNDS REPS GAP_US SIZE...\n");
    MPI_Finalize();
    return 2;
  }
  const std::string payload = argv[1];
  const int rounds = std::atoi(argv[2]), reps = std::atoi(argv[3]);
  const double gap_us = std::atof(argv[4]);
  std::vector<long> sizes;
  for (int i = 5; i < argc; ++i) sizes.push_back(std::atol(argv[i]));
  const long max_size = *std::max_element(sizes.begin(), sizes.end());
  const unsigned long long load_bytes = 512ull << 20;
  const char* gpus_env = std::getenv("BARE_LOAD_GPUS");
  const int gpus = gpus_env != nullptr ? std::atoi(gpus_env) : 1;
  int devices = 0;
  cudaGetDeviceCount(&devices);
  if (gpus < 1 || gpus > devices) {
    if (rank == 0) std::fprintf(stderr, "BARE_LOAD_GPUS=%d: this node has %d GPU(s)\n", gpus, devices);
    MPI_Finalize();
    return 2;
  }
  const int mine = rank == 0 ? gpus : 1;  // the receiver needs no more contexts than before
  const char* receiver_env = std::getenv("BARE_RECEIVER_GPU");
  const int receiver_gpu = receiver_env != nullptr ? std::atoi(receiver_env) : 0;
  if (receiver_gpu < 0 || receiver_gpu >= devices) {
    if (rank == 0) std::fprintf(stderr, "BARE_RECEIVER_GPU=%s: this node has %d GPU(s)\n", receiver_env, devices);
    MPI_Finalize();
    return 2;
  }
  const int first = rank == 0 ? 0 : receiver_gpu;  // this rank's GPU g is device first + g
  char *buf = nullptr, *message = nullptr;
  std::vector<ulonglong2*> target(mine, nullptr);
  std::vector<int*> stop(mine, nullptr);
  std::vector<unsigned long long*> bytes(mine, nullptr), sink(mine, nullptr);
  std::vector<cudaStream_t> run(mine);
  std::vector<int> blocks(mine, 0);
  cudaSetDevice(first);
  const char* near_env = std::getenv("BARE_LOAD_NEAR");
  const bool near = near_env != nullptr && std::string(near_env) == "1";
  const char* chunk_env = std::getenv("BARE_CHUNK_BYTES");
  const unsigned long long chunk_units = chunk_env != nullptr ? std::strtoull(chunk_env, nullptr, 10) / 16 : 0;
  if (chunk_units % 32 != 0) {
    if (rank == 0) std::fprintf(stderr, "BARE_CHUNK_BYTES=%s: a multiple of 512 bytes\n", chunk_env);
    MPI_Finalize();
    return 2;
  }
  const char* realloc_env = std::getenv("BARE_REALLOC");
  const bool fresh = realloc_env != nullptr && std::string(realloc_env) == "1";
  if (fresh && near) {
    if (rank == 0) std::fprintf(stderr, "BARE_REALLOC=1 needs the load in allocations of their own\n");
    MPI_Finalize();
    return 2;
  }
  std::vector<int> visited = {kIdle};
  const char* loads_env = std::getenv("BARE_LOADS");
  for (int kind : {kWrite, kRead, kPoll})
    if (loads_env == nullptr ||
        ("," + std::string(loads_env) + ",").find("," + std::string(kNames[kind]) + ",") != std::string::npos)
      visited.push_back(kind);
  if (visited.size() == 1) {
    if (rank == 0) std::fprintf(stderr, "BARE_LOADS=%s: name write, read or poll\n", loads_env);
    MPI_Finalize();
    return 2;
  }
  const unsigned long long gap = 2ull << 20;
  const unsigned long long send_bytes = (max_size + 4095) / 4096 * 4096;
  if (near) {
    cudaHostAlloc(reinterpret_cast<void**>(&buf), send_bytes + gap + load_bytes, cudaHostAllocMapped);
    target[0] = reinterpret_cast<ulonglong2*>(buf + send_bytes + gap);
  } else {
    cudaHostAlloc(reinterpret_cast<void**>(&buf), max_size, cudaHostAllocMapped);
  }
  // Each GPU's own load memory, flag and counter, made while it is current:
  // the pinned pages are that GPU's (no cudaHostAllocPortable).
  for (int g = 0; g < mine; ++g) {
    cudaSetDevice(first + g);
    if (target[g] == nullptr) cudaHostAlloc(reinterpret_cast<void**>(&target[g]), load_bytes, cudaHostAllocMapped);
    cudaHostAlloc(reinterpret_cast<void**>(&stop[g]), 4096, cudaHostAllocMapped);
    cudaMalloc(reinterpret_cast<void**>(&bytes[g]), sizeof(unsigned long long));
    cudaMalloc(reinterpret_cast<void**>(&sink[g]), sizeof(unsigned long long));
    cudaStreamCreateWithFlags(&run[g], cudaStreamNonBlocking);
    int sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, first + g);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, load, 1024, 0);
    blocks[g] = sms * per_sm;
  }
  cudaSetDevice(first);
  cudaMalloc(reinterpret_cast<void**>(&message), max_size);
  cudaMemset(message, 0x5A, max_size);
  std::memset(buf, 0x33, max_size);
  cudaStream_t copy;
  cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking);
  if (rank == 0)
    std::printf(
        "# bare_load_rounds: payload %s, %d rounds x %d sends, gap %.0f us, %d GPU(s) loading, each %d x 1024 "
        "threads over 512 MiB%s, %s, receiver on GPU %d%s, %zu loads a round\n"
        "# size_bytes load ratio_median ci95_low ci95_high idle_median_us load_gbs\n",
        payload.c_str(), rounds, reps, gap_us, gpus, blocks[0], near ? " (GPU 0's 2 MiB after the send buffer)" : "",
        chunk_units ? (std::to_string(chunk_units * 16) + " B chunks per warp").c_str() : "grid-stride", receiver_gpu,
        fresh ? ", fresh pinned memory every round" : "", visited.size() - 1);
  std::mt19937_64 rng(12345);  // the same orders on both ranks
  for (long n : sizes) {
    std::vector<std::vector<double>> round_medians(4);
    double moved[4] = {}, seconds[4] = {};
    for (int r = 0; r < rounds; ++r) {
      if (fresh && r > 0) {  // new pages for the send buffer and every load, as a new launch gets
        cudaSetDevice(first);
        cudaFreeHost(buf);
        cudaHostAlloc(reinterpret_cast<void**>(&buf), max_size, cudaHostAllocMapped);
        std::memset(buf, 0x33, max_size);
        for (int g = 0; g < mine; ++g) {
          cudaSetDevice(first + g);
          cudaFreeHost(target[g]);
          cudaHostAlloc(reinterpret_cast<void**>(&target[g]), load_bytes, cudaHostAllocMapped);
        }
        cudaSetDevice(first);
      }
      std::vector<int> order = visited;
      std::shuffle(order.begin(), order.end(), rng);
      for (int kind : order) {
        const auto started = std::chrono::steady_clock::now();
        if (rank == 0 && kind != kIdle) {
          for (int g = 0; g < gpus; ++g) {  // a launch goes to the current GPU's stream
            cudaSetDevice(g);
            *stop[g] = 0;
            cudaMemsetAsync(bytes[g], 0, sizeof(unsigned long long), run[g]);
            load<<<blocks[g], 1024, 0, run[g]>>>(kind, target[g], load_bytes / 16, stop[g], bytes[g], sink[g],
                                                 chunk_units);
          }
          cudaSetDevice(0);
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        std::vector<double> us;
        for (int i = 0; i < reps + 1; ++i) {
          if (rank == 0 && payload == "cpu") std::memset(buf, 0x40 + (i & 7), n);
          if (rank == 0 && payload == "cpuloop") {  // 8-byte stores of a pattern memset cannot make, as hetprobe's
            volatile unsigned long long* w = reinterpret_cast<volatile unsigned long long*>(buf);
            for (long k = 0; k < n / 8; ++k) w[k] = (static_cast<unsigned long long>(i) << 40) ^ k;
          }
          if (rank == 0 && payload == "gpu")
            cudaMemcpyAsync(buf, message, n, cudaMemcpyDeviceToHost, copy), cudaStreamSynchronize(copy);
          MPI_Request req;
          if (rank == 1) MPI_Irecv(buf, static_cast<int>(n), MPI_BYTE, 0, 0, MPI_COMM_WORLD, &req);
          MPI_Barrier(MPI_COMM_WORLD);
          if (rank == 0 && gap_us > 0) {
            const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(gap_us);
            while (std::chrono::steady_clock::now() < until) {
            }
          }
          const auto t0 = std::chrono::steady_clock::now();
          if (rank == 0) MPI_Send(buf, static_cast<int>(n), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          else MPI_Wait(&req, MPI_STATUS_IGNORE);
          const double t = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
          if (i > 0) us.push_back(t);  // the first is a warm-up
        }
        round_medians[kind].push_back(median(us));
        if (rank == 0 && kind != kIdle) {
          for (int g = 0; g < gpus; ++g) *stop[g] = 1;
          for (int g = 0; g < gpus; ++g) {
            cudaStreamSynchronize(run[g]);
            unsigned long long b = 0;
            cudaMemcpy(&b, bytes[g], sizeof b, cudaMemcpyDefault);  // from GPU g's memory (unified addressing)
            moved[kind] += static_cast<double>(b);
          }
          seconds[kind] += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        }
      }
    }
    if (rank != 0) continue;
    for (int kind : visited) {
      if (kind == kIdle) continue;
      std::vector<double> ratio;
      for (int r = 0; r < rounds; ++r) ratio.push_back(round_medians[kind][r] / round_medians[kIdle][r]);
      const Interval ci = median_ci95(ratio);
      std::printf("%ld %s %.4f %.4f %.4f %.3f %.2f\n", n, kNames[kind], median(ratio), ci.lo, ci.hi,
                  median(round_medians[kIdle]), seconds[kind] > 0 ? moved[kind] / seconds[kind] * 1e-9 : 0.0);
    }
    std::fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
