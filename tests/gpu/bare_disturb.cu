// Another tenant of one GPU, for the node verdict's disturbed run
// (tests/gpu/repeat.sh): for SECONDS on device DEVICE it keeps that GPU busy
// in one of three ways, then exits 0 (1 on a CUDA error):
//   copy    device-to-device async copies, 256 MiB back to back on two
//           streams: its copy engines and memory, no host traffic, so the
//           node's other GPUs and host memory are left alone
//   kernel  a kernel on every SM that spins until the time is up: its SMs
//   host    copies to and from 256 MiB of pinned host memory: its copy engines
//           and its link, and host memory that the other GPUs share
//   bare_disturb DEVICE SECONDS copy|kernel|host
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void spin(long long ns) {
  long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (long long now = start; now - start < ns;) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
}

int main(int argc, char** argv) {
  if (argc != 4) return std::fprintf(stderr, "usage: bare_disturb DEVICE SECONDS copy|kernel|host\n"), 2;
  const int device = std::atoi(argv[1]);
  const double seconds = std::atof(argv[2]);
  const char* mode = argv[3];
  constexpr size_t kBytes = 256ull << 20;
  if (cudaSetDevice(device) != cudaSuccess) return 1;
  char *a = nullptr, *b = nullptr, *host = nullptr;
  if (cudaMalloc(&a, kBytes) != cudaSuccess || cudaMalloc(&b, kBytes) != cudaSuccess) return 1;
  if (!std::strcmp(mode, "host") && cudaHostAlloc(&host, kBytes, cudaHostAllocDefault) != cudaSuccess) return 1;
  cudaStream_t s[2];
  for (auto& x : s) cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (!std::strcmp(mode, "kernel")) {
      spin<<<sms * 4, 256, 0, s[0]>>>(100'000'000);  // 0.1 s a launch
    } else if (!std::strcmp(mode, "copy")) {
      cudaMemcpyAsync(b, a, kBytes, cudaMemcpyDeviceToDevice, s[0]);
      cudaMemcpyAsync(a, b, kBytes, cudaMemcpyDeviceToDevice, s[1]);
    } else {
      cudaMemcpyAsync(host, a, kBytes, cudaMemcpyDeviceToHost, s[0]);
      cudaMemcpyAsync(b, host, kBytes, cudaMemcpyHostToDevice, s[1]);
    }
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  }
  std::printf("bare_disturb: device %d busy (%s) for %.0f s\n", device, mode, seconds);
  return 0;
}
