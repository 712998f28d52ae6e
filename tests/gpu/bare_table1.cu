// Table 1 of Elis et al. 2024 in its barest form, no hetprobe code: one flag
// read + one flag write on each side, of a flag the other side wrote last,
// each pair timed alone (hetprobe notify --parts handover --orders volatile:relaxed).
//   CPU: a 1x1 kernel stores the target (relaxed, system scope), then a
//   "written" flag (release); the host sees it and times one volatile load +
//   store of the target between two TSC reads kept in order with the loads
//   (lfence; rdtsc; lfence), and, for comparison, between two plain rdtsc.
//   GPU: the host stores the target, then a go flag (release); the kernel
//   sees it and times one system-scope relaxed atomic load + store of the
//   target between two %globaltimer reads, then acknowledges.
// Each timer's cost: rdtsc; rdtsc on the host, globaltimer; globaltimer in a
// 1x1 kernel, as many times. One line, medians in ns:
//   bare-table1 pairs=N cpu_pair_ns= tsc_empty_ns= cpu_beyond_ns= gpu_pair_ns= globaltimer_cost_ns= gpu_beyond_ns=
//   plain_rdtsc_pair_ns= plain_rdtsc_beyond_ns=   (the CPU pair between plain rdtsc: the load's issue only)
#include <cuda_runtime.h>
#include <x86intrin.h>
#include <cuda/atomic>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "bare.cuh"

using ull = unsigned long long;
using Sys = cuda::atomic_ref<ull, cuda::thread_scope_system>;
constexpr int kPairs = 1000, kWarmup = 100, kAll = kPairs + kWarmup;

// The TSC kept in order with the loads around it (as hetprobe's HostClock::now_ordered):
// the region between two reads holds the load's miss, not only its issue.
inline ull tsc_ordered() {
  _mm_lfence();
  const ull t = __rdtsc();
  _mm_lfence();
  return t;
}

__global__ void write_for_cpu(ull* request, ull* target, ull* written) {
  for (ull i = 1; i <= kAll; ++i) {
    while (Sys(*request).load(cuda::memory_order_acquire) < i) {
    }
    Sys(*target).store(2 * i, cuda::memory_order_relaxed);
    Sys(*written).store(i, cuda::memory_order_release);
  }
}

__global__ void pair_after_cpu(ull* go, ull* target, ull* ack, ull* out) {
  for (ull i = 1; i <= kAll; ++i) {
    while (Sys(*go).load(cuda::memory_order_acquire) < i) {
    }
    const ull t0 = globaltimer();
    const ull seen = Sys(*target).load(cuda::memory_order_relaxed);
    Sys(*target).store(seen + 1, cuda::memory_order_relaxed);
    out[i - 1] = globaltimer() - t0;
    Sys(*ack).store(i, cuda::memory_order_release);
  }
}

__global__ void timer_cost(ull* out) {
  for (int i = 0; i < kPairs; ++i) {
    const ull t0 = globaltimer();
    out[i] = globaltimer() - t0;
  }
}

double median(std::vector<ull> v, double ns_per_tick, int skip = 0) {
  v.erase(v.begin(), v.begin() + skip);
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0) * ns_per_tick;
}

int main() {
  const auto s0 = std::chrono::steady_clock::now();
  const ull c0 = __rdtsc();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const double tsc_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - s0).count() /
                        static_cast<double>(__rdtsc() - c0);
  ull* host = nullptr;  // request/go at 0, written/ack 128 B on, the target on a page of its own
  CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host), 3 * 4096, cudaHostAllocMapped));
  std::memset(host, 0, 3 * 4096);
  ull* dev = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0));
  ull *to_device = host, *to_host = host + 16, *target = host + 1024;
  ull* out = nullptr;
  CHECK(cudaMalloc(&out, kAll * sizeof(ull)));

  std::vector<ull> cpu(kAll), plain(kAll), empty(kPairs), plain_empty(kPairs), gpu(kAll), cost(kPairs);
  for (ull& e : empty) {
    const ull t0 = tsc_ordered();
    e = tsc_ordered() - t0;
  }
  for (ull& e : plain_empty) {
    const ull t0 = __rdtsc();
    e = __rdtsc() - t0;
  }
  // The ordered reads first (what hetprobe times), then the same pairs between plain rdtsc.
  for (std::vector<ull>* times : {&cpu, &plain}) {
    std::memset(host, 0, 3 * 4096);
    write_for_cpu<<<1, 1>>>(dev, dev + 1024, dev + 16);
    CHECK(cudaGetLastError());
    for (ull i = 1; i <= kAll; ++i) {
      __atomic_store_n(to_device, i, __ATOMIC_RELEASE);
      while (__atomic_load_n(to_host, __ATOMIC_ACQUIRE) < i) {
      }
      const bool ordered = times == &cpu;
      const ull t0 = ordered ? tsc_ordered() : __rdtsc();
      const ull seen = *static_cast<volatile ull*>(target);
      *static_cast<volatile ull*>(target) = seen + 1;
      (*times)[i - 1] = (ordered ? tsc_ordered() : __rdtsc()) - t0;
    }
    CHECK(cudaDeviceSynchronize());
  }
  std::memset(host, 0, 3 * 4096);  // no kernel runs: the GPU pairs' sequence starts at 1 again

  timer_cost<<<1, 1>>>(out);
  CHECK(cudaMemcpy(cost.data(), out, kPairs * sizeof(ull), cudaMemcpyDeviceToHost));
  pair_after_cpu<<<1, 1>>>(dev, dev + 1024, dev + 16, out);
  CHECK(cudaGetLastError());
  for (ull i = 1; i <= kAll; ++i) {
    *static_cast<volatile ull*>(target) = 2 * i;
    __atomic_store_n(to_device, i, __ATOMIC_RELEASE);
    while (__atomic_load_n(to_host, __ATOMIC_ACQUIRE) < i) {
    }
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(gpu.data(), out, kAll * sizeof(ull), cudaMemcpyDeviceToHost));

  const double cpu_pair = median(cpu, tsc_ns, kWarmup), tsc_empty = median(empty, tsc_ns);
  const double plain_pair = median(plain, tsc_ns, kWarmup), plain_empty_ns = median(plain_empty, tsc_ns);
  const double gpu_pair = median(gpu, 1, kWarmup), gpu_cost = median(cost, 1);
  std::printf(
      "bare-table1 pairs=%d cpu_pair_ns=%.2f tsc_empty_ns=%.2f cpu_beyond_ns=%.2f gpu_pair_ns=%.2f "
      "globaltimer_cost_ns=%.2f gpu_beyond_ns=%.2f plain_rdtsc_pair_ns=%.2f plain_rdtsc_beyond_ns=%.2f\n",
      kPairs, cpu_pair, tsc_empty, cpu_pair - tsc_empty, gpu_pair, gpu_cost, gpu_pair - gpu_cost, plain_pair,
      plain_pair - plain_empty_ns);
  return 0;
}
