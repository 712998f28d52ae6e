// The reference hetprobe halo's unpack rate is checked against: the barest
// copy of one message from pinned host memory into device memory by B blocks
// of 128 threads, 16-byte loads, no flags, no checks, timed on the GPU from the
// first block's start to the last block's end (what a halo stamp measures),
// median of 50 launches (CUDA only; built and run by tests/gpu/halo.sh).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

__device__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void unpack(const ulonglong2* in, ulonglong2* out, unsigned long long units, unsigned long long* stamps) {
  if (threadIdx.x == 0) stamps[2 * blockIdx.x] = now();
  for (unsigned long long u = blockIdx.x * blockDim.x + threadIdx.x; u < units; u += gridDim.x * blockDim.x)
    out[u] = in[u];
  __syncthreads();
  if (threadIdx.x == 0) stamps[2 * blockIdx.x + 1] = now();
}

int main() {
  constexpr int reps = 50, threads = 128;
  ulonglong2 *host = nullptr, *in = nullptr, *out = nullptr;
  unsigned long long* stamps = nullptr;
  const std::size_t most = 960000;
  if (cudaHostAlloc(reinterpret_cast<void**>(&host), most, cudaHostAllocMapped) != cudaSuccess) return 1;
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&in), host, 0);
  cudaMalloc(reinterpret_cast<void**>(&out), most);
  cudaMallocManaged(reinterpret_cast<void**>(&stamps), 2 * 4096 * sizeof(unsigned long long));
  for (std::size_t bytes : {60000ul, 240000ul, 960000ul})
    for (int blocks : {1, 8, 32, 128}) {
      std::vector<double> ns;
      for (int r = 0; r < reps; ++r) {
        unpack<<<blocks, threads>>>(in, out, bytes / 16, stamps);
        if (cudaDeviceSynchronize() != cudaSuccess) return 1;
        unsigned long long first = ~0ull, last = 0;
        for (int b = 0; b < blocks; ++b)
          first = std::min(first, stamps[2 * b]), last = std::max(last, stamps[2 * b + 1]);
        ns.push_back(static_cast<double>(last - first));
      }
      std::sort(ns.begin(), ns.end());
      std::printf("bare unpack %7zu B, %3d blocks x %d threads: median %8.1f ns, %6.2f GB/s (%d launches)\n", bytes,
                  blocks, threads, ns[reps / 2], bytes / ns[reps / 2], reps);
    }
  return 0;
}
