// Where does the clock sync's bound move between launches? The barest form of
// hetprobe clock's exchange (tests/gpu/bare_pingpong.cu's second one: the GPU
// stamps %globaltimer, posts it, waits for the host to clear it, stamps
// again), measured from every CPU the process may run on and from chosen SMs,
// with no hetprobe code. Each line is one placement:
//   bare-clock-placement cpu=C sm=S exchanges=N min_ns=X p10_ns=Y median_ns=Z
// `sm` is the SM the kernel ran on (%smid); the first part lets the block
// scheduler place the kernel (as hetprobe does), the second forces it onto
// SM 0, 1/4, 1/2, 3/4 and the last of the device, from the first CPU.
// Built by CMake with the CUDA backend (tests/gpu/CMakeLists.txt).
#include <cuda_runtime.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bare.cuh"

__device__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// One block per SM when launched with the SM's whole shared memory (dynamic,
// reserved whether used or not); only the
// block on `target` (or the first block, target < 0) runs the exchanges.
__global__ void exchanges(volatile unsigned long long* slot, unsigned long long* intervals, unsigned* ran_on, int n,
                          int target) {
  if (target < 0 ? blockIdx.x != 0 : smid() != static_cast<unsigned>(target)) return;
  *ran_on = smid();
  for (int i = 0; i < n; ++i) {
    const unsigned long long t0 = globaltimer();
    *slot = t0 | 1;
    __threadfence_system();
    while (*slot != 0) {
    }
    intervals[i] = globaltimer() - t0;
  }
}

struct Placement {
  int cpu, sm;
  double min, p10, median;
};

Placement measure(volatile unsigned long long* host_slot, unsigned long long* dev_slot, int cpu, int target, int sms,
                  std::size_t smem) {
  constexpr int n = 4000, warmup = 200;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) std::exit(1);
  unsigned long long* intervals = nullptr;
  unsigned* ran_on = nullptr;
  CHECK(cudaMalloc(&intervals, n * sizeof(unsigned long long)));
  CHECK(cudaMallocManaged(&ran_on, sizeof(unsigned)));
  *host_slot = 0;
  if (target < 0) exchanges<<<1, 1>>>(dev_slot, intervals, ran_on, n, target);
  else exchanges<<<sms, 1, smem>>>(dev_slot, intervals, ran_on, n, target);
  CHECK(cudaGetLastError());
  for (int i = 0; i < n; ++i) {
    while (*host_slot == 0) {
    }
    *host_slot = 0;
  }
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned long long> v(n);
  CHECK(cudaMemcpy(v.data(), intervals, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::sort(v.begin() + warmup, v.end());
  const auto at = [&](double q) { return static_cast<double>(v[warmup + static_cast<int>(q * (n - warmup - 1))]); };
  Placement p{cpu, static_cast<int>(*ran_on), at(0), at(0.1), at(0.5)};
  std::printf("bare-clock-placement cpu=%d sm=%d exchanges=%d min_ns=%.0f p10_ns=%.0f median_ns=%.0f\n", p.cpu, p.sm,
              n - warmup, p.min, p.p10, p.median);
  CHECK(cudaFree(intervals));
  CHECK(cudaFree(ran_on));
  return p;
}

int main() {
  unsigned long long* host = nullptr;
  CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host), 4096, cudaHostAllocMapped));
  std::memset(host, 0, 4096);
  unsigned long long* dev = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), host, 0));
  int sms = 0, smem = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CHECK(cudaFuncSetAttribute(exchanges, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof allowed, &allowed);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  volatile unsigned long long* slot = host + 32;
  (void)measure(slot, dev + 32, cpus[0], -1, sms, smem);  // warm-up: first launch
  std::vector<Placement> by_cpu;
  for (int cpu : cpus) by_cpu.push_back(measure(slot, dev + 32, cpu, -1, sms, smem));
  for (int target : {0, sms / 4, sms / 2, 3 * sms / 4, sms - 1})
    (void)measure(slot, dev + 32, cpus[0], target, sms, smem);
  // The scheduler's choice again, from the first CPU, three more times.
  for (int i = 0; i < 3; ++i) (void)measure(slot, dev + 32, cpus[0], -1, sms, smem);
  // Flags in other pinned allocations (other physical pages), from the first CPU.
  for (int b = 0; b < 12; ++b) {
    unsigned long long* other = nullptr;
    CHECK(cudaHostAlloc(reinterpret_cast<void**>(&other), 4 << 20, cudaHostAllocMapped));
    std::memset(other, 0, 4 << 20);
    unsigned long long* other_dev = nullptr;
    CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&other_dev), other, 0));
    std::printf("buffer %d: ", b);
    (void)measure(other + (b << 15), other_dev + (b << 15), cpus[0], -1, sms, smem);
  }
  const auto [lo, hi] = std::minmax_element(by_cpu.begin(), by_cpu.end(),
                                            [](const Placement& a, const Placement& b) { return a.min < b.min; });
  std::printf("bare-clock-placement-cpus cpus=%zu min_of_mins_ns=%.0f on_cpu=%d max_of_mins_ns=%.0f on_cpu=%d\n",
              by_cpu.size(), lo->min, lo->cpu, hi->min, hi->cpu);
  return 0;
}
