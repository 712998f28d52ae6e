// The reference hetprobe's flag round trip is checked against: the barest
// CPU->GPU->CPU ping-pong through two pinned flags 128 B apart, one GPU
// thread, no timeouts, no options (CUDA only; built by CMake with the CUDA
// backend as build/tests/gpu/bare_pingpong, run by run.sh).
// hetprobe notify's cpu-gpu-cpu row of the same primitive should match it.
// Its last line, one parseable line of key=value, gives each order's minimum
// round trip and half of it (ns, host steady_clock, one clock read included),
//   bare-pingpong-min exchanges=19000 volatile_min_ns=X volatile_half_min_ns=X/2 fence_min_ns=Y ...
// the bound `hetprobe clock`'s precision_ns is judged against (its default
// --order fence: fence_half_min_ns), since a sync sample's interval is one such
// round trip and its precision half of it.
// A second exchange is the clock sync's own, at its barest: the GPU stamps
// %globaltimer, posts it, waits for the host to clear it, stamps again; the
// device interval's minimum, halved, is the bound of a sync sample's
// precision measured as hetprobe clock measures it (its last line,
//   bare-clock-sync-min exchanges=19000 device_min_ns=X device_half_min_ns=X/2).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bare.cuh"

template <bool Fence>
__global__ void echo(const volatile unsigned long long* in, volatile unsigned long long* out, int n) {
  for (unsigned long long i = 1; i <= static_cast<unsigned long long>(n); ++i) {
    while (*in < i) {
    }
    *out = i;
    if (Fence) __threadfence_system();
  }
}

// GPU-initiated: post the timer (non-zero), fence, wait until the host has
// cleared it, read the timer again; the intervals go to device memory.
__global__ void sync_exchanges(volatile unsigned long long* slot, unsigned long long* intervals, int n) {
  for (int i = 0; i < n; ++i) {
    const unsigned long long t0 = globaltimer();
    *slot = t0 | 1;
    __threadfence_system();
    while (*slot != 0) {
    }
    intervals[i] = globaltimer() - t0;
  }
}

// The host's side of sync_exchanges: wait for a post, clear it.
double sync_min_ns(unsigned long long* host, unsigned long long* dev, int n, int warmup) {
  unsigned long long* intervals = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&intervals), n * sizeof(unsigned long long)) != cudaSuccess) return -1;
  std::memset(host, 0, 4096);
  volatile unsigned long long* slot = host + 32;
  sync_exchanges<<<1, 1>>>(dev + 32, intervals, n);
  for (int i = 0; i < n; ++i) {
    while (*slot == 0) {
    }
    *slot = 0;
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return -1;
  std::vector<unsigned long long> v(n);
  cudaMemcpy(v.data(), intervals, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  cudaFree(intervals);
  return static_cast<double>(*std::min_element(v.begin() + warmup, v.end()));
}

int main() {
  constexpr int n = 20000, warmup = 1000;
  unsigned long long* host = nullptr;
  if (cudaHostAlloc(reinterpret_cast<void**>(&host), 4096, cudaHostAllocMapped) != cudaSuccess) return 1;
  unsigned long long* dev = nullptr;
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0);
  double min_ns[2] = {0, 0};
  for (bool fence : {false, true}) {
    std::memset(host, 0, 4096);
    volatile unsigned long long* in = host;
    volatile unsigned long long* out = host + 16;
    if (fence) echo<true><<<1, 1>>>(dev, dev + 16, n);
    else echo<false><<<1, 1>>>(dev, dev + 16, n);
    std::vector<double> ns;
    for (unsigned long long i = 1; i <= n; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      *in = i;
      while (*out < i) {
      }
      ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
    }
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    std::sort(ns.begin() + warmup, ns.end());
    const auto at = [&](double q) { return ns[warmup + static_cast<std::size_t>(q * (n - warmup - 1))]; };
    min_ns[fence] = ns[warmup];
    std::printf(
        "bare ping-pong, GPU store %s: median %.1f ns, p10 %.1f ns, p90 %.1f ns, min %.1f ns (%d exchanges after %d)\n",
        fence ? "volatile + __threadfence_system" : "volatile", at(0.5), at(0.1), at(0.9), min_ns[fence], n - warmup,
        warmup);
  }
  std::printf(
      "bare-pingpong-min exchanges=%d volatile_min_ns=%.1f volatile_half_min_ns=%.1f fence_min_ns=%.1f "
      "fence_half_min_ns=%.1f\n",
      n - warmup, min_ns[0], min_ns[0] / 2, min_ns[1], min_ns[1] / 2);
  const double device_min = sync_min_ns(host, dev, n, warmup);
  if (device_min < 0) return 1;
  std::printf("bare-clock-sync-min exchanges=%d device_min_ns=%.1f device_half_min_ns=%.1f\n", n - warmup, device_min,
              device_min / 2);
  return 0;
}
