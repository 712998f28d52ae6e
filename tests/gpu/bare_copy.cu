// The reference hetprobe's copy loads are checked against: the barest loop
// of async copies between device memory and 256 MiB of pinned host memory,
// 8 MiB each, back to back on one stream for 0.5 s, event-timed, each way
// (CUDA; built and run by tests/gpu/load.sh). Prints GB/s (10^9 B/s).
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  constexpr size_t kBytes = 256ull << 20, kChunk = 8ull << 20;
  char *host = nullptr, *dev = nullptr;
  if (cudaHostAlloc(reinterpret_cast<void **>(&host), kBytes, cudaHostAllocMapped) != cudaSuccess) return 1;
  if (cudaMalloc(reinterpret_cast<void **>(&dev), kBytes) != cudaSuccess) return 1;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int to_host = 1; to_host >= 0; --to_host) {
    const int copies = 3000;  // about 0.5 s at 50 GB/s
    cudaMemcpyAsync(to_host ? host : dev, to_host ? dev : host, kBytes,
                    to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, s);
    cudaEventRecord(a, s);
    for (int i = 0; i < copies; ++i) {
      const size_t off = (i * kChunk) % kBytes;
      cudaMemcpyAsync(to_host ? host + off : dev + off, to_host ? dev + off : host + off, kChunk,
                      to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, s);
    }
    cudaEventRecord(b, s);
    if (cudaEventSynchronize(b) != cudaSuccess) return 1;
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    std::printf("bare copy loop, %s: %.2f GB/s (%d copies of 8 MiB, back to back on one stream)\n",
                to_host ? "device-to-host" : "host-to-device",
                copies * static_cast<double>(kChunk) / (ms * 1e-3) * 1e-9, copies);
  }
  return 0;
}
