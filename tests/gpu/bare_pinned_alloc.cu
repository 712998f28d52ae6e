// What the set-up of characterize's launches costs, with no hetprobe code:
// per GPU, the first CUDA call (its context), then REPS times cudaHostAlloc
// and cudaFreeHost of each SIZE (pinned, mapped, made while that GPU is
// current), each timed on the host's steady clock. Prints one line per GPU
// and size: the median and the largest alloc and free, in ms.
//   bare_pinned_alloc REPS SIZE_MIB...
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bare_pinned_alloc REPS SIZE_MIB...\n");
    return 2;
  }
  const int reps = std::atoi(argv[1]);
  int devices = 0;
  cudaGetDeviceCount(&devices);
  std::printf("# gpu size_mib alloc_median_ms alloc_max_ms free_median_ms free_max_ms (context ms first)\n");
  for (int g = 0; g < devices; ++g) {
    auto t = Clock::now();
    cudaSetDevice(g);
    cudaFree(nullptr);  // the context
    std::printf("%d context %.1f\n", g, ms_since(t));
    for (int a = 2; a < argc; ++a) {
      const std::size_t bytes = std::strtoull(argv[a], nullptr, 10) << 20;
      std::vector<double> alloc, release;
      for (int r = 0; r < reps; ++r) {
        void* p = nullptr;
        t = Clock::now();
        if (cudaHostAlloc(&p, bytes, cudaHostAllocMapped) != cudaSuccess) return 1;
        alloc.push_back(ms_since(t));
        t = Clock::now();
        cudaFreeHost(p);
        release.push_back(ms_since(t));
      }
      std::printf("%d %s %.2f %.2f %.2f %.2f\n", g, argv[a], median(alloc),
                  *std::max_element(alloc.begin(), alloc.end()), median(release),
                  *std::max_element(release.begin(), release.end()));
    }
  }
  return 0;
}
