// The reference `hetprobe gpus` is checked against: every GPU of the node in
// ROUNDS rounds (default 6), each round visiting the GPUs in turn from one
// process, each visit with fresh pinned flags and a fresh 64 MiB pinned
// buffer: the median of 1000 CPU->GPU->CPU round trips (host volatile store,
// one GPU thread answering with a system-scope relaxed store, as hetprobe's
// volatile:relaxed), of 200 empty-kernel launches + cudaDeviceSynchronize,
// and of 3 cudaMemcpyAsync each way (event-timed). One line per GPU, the
// medians over the rounds:
//   bare-gpus gpu=G roundtrip_ns= launch_sync_ns= copy_d2h_gbs= copy_h2d_gbs=
//   bare_gpus [ROUNDS]
#include <cuda_runtime.h>
#include <cuda/atomic>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bare.cuh"

using ull = unsigned long long;
using Clock = std::chrono::steady_clock;
constexpr int kExchanges = 1000, kLaunches = 200, kCopies = 3;
constexpr size_t kBytes = 64ull << 20;

__global__ void echo(volatile ull* in, ull* out, ull n) {
  for (ull i = 1; i <= n; ++i) {
    while (*in < i) {
    }
    cuda::atomic_ref<ull, cuda::thread_scope_system>(*out).store(i, cuda::memory_order_relaxed);
  }
}
__global__ void empty() {}

double ns_since(Clock::time_point t0) { return std::chrono::duration<double, std::nano>(Clock::now() - t0).count(); }

// One visit of the current device: its four medians.
std::vector<double> visit() {
  ull* flags = nullptr;
  if (cudaHostAlloc(&flags, 4096, cudaHostAllocMapped) != cudaSuccess) std::exit(1);
  volatile ull* in = flags;
  ull* out = flags + 16;
  in[0] = 0, out[0] = 0;
  ull* dev = nullptr;
  cudaHostGetDevicePointer(&dev, flags, 0);
  echo<<<1, 1>>>(dev, dev + 16, kExchanges + 20);
  std::vector<double> rt;
  for (ull i = 1; i <= kExchanges + 20; ++i) {
    const auto t0 = Clock::now();
    *in = i;
    while (cuda::atomic_ref<ull, cuda::thread_scope_system>(*out).load(cuda::memory_order_relaxed) < i) {
    }
    if (i > 20) rt.push_back(ns_since(t0));
  }
  if (cudaDeviceSynchronize() != cudaSuccess) std::exit(1);
  cudaFreeHost(flags);
  std::vector<double> ls;
  for (int i = 0; i < kLaunches + 20; ++i) {
    const auto t0 = Clock::now();
    empty<<<1, 1>>>();
    cudaDeviceSynchronize();
    if (i >= 20) ls.push_back(ns_since(t0));
  }
  char *host = nullptr, *buf = nullptr;
  if (cudaHostAlloc(&host, kBytes, cudaHostAllocDefault) != cudaSuccess || cudaMalloc(&buf, kBytes) != cudaSuccess)
    std::exit(1);
  cudaEvent_t a, b;
  cudaEventCreate(&a), cudaEventCreate(&b);
  std::vector<double> gbs[2];
  for (int to_host = 1; to_host >= 0; --to_host)
    for (int i = 0; i <= kCopies; ++i) {  // the first is the buffer's first touch, untimed
      cudaEventRecord(a);
      cudaMemcpyAsync(to_host ? host : buf, to_host ? buf : host, kBytes,
                      to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      if (i > 0) gbs[to_host].push_back(kBytes / (ms * 1e6));
    }
  cudaEventDestroy(a), cudaEventDestroy(b), cudaFreeHost(host), cudaFree(buf);
  return {median(rt), median(ls), median(gbs[1]), median(gbs[0])};
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 6;
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 1 || rounds < 1) return 1;
  for (int g = 0; g < gpus; ++g) cudaSetDevice(g), (void)visit();  // warm-up: contexts, module load
  std::vector<std::vector<std::vector<double>>> seen(gpus, std::vector<std::vector<double>>(4));
  for (int r = 0; r < rounds; ++r)
    for (int g = 0; g < gpus; ++g) {
      cudaSetDevice(g);
      const std::vector<double> v = visit();
      for (int m = 0; m < 4; ++m) seen[g][m].push_back(v[m]);
    }
  for (int g = 0; g < gpus; ++g)
    std::printf("bare-gpus gpu=%d roundtrip_ns=%.1f launch_sync_ns=%.1f copy_d2h_gbs=%.2f copy_h2d_gbs=%.2f\n", g,
                median(seen[g][0]), median(seen[g][1]), median(seen[g][2]), median(seen[g][3]));
  return 0;
}
