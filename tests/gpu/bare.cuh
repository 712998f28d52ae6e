// The few helpers the bare reference programs (bare_*.cu) share, none of them
// hetprobe code: stopping at a CUDA error, the GPU's nanosecond clock, and a
// median with its order-statistic 95% interval.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Runs a CUDA call; at an error, says which call and line, and exits 1.
#define CHECK(call)                                                                       \
  do {                                                                                    \
    if (cudaError_t e = (call); e != cudaSuccess) {                                       \
      std::fprintf(stderr, "%s: %s (line %d)\n", #call, cudaGetErrorString(e), __LINE__); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

// The GPU's nanosecond timer, %globaltimer.
__device__ inline unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The middle value, or the mean of the two middle ones.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The order-statistic 95% interval of the median of R values: the k-th
// smallest and k-th largest, k from the binomial tail (NaN where R is too few).
struct Interval {
  double lo, hi;
};
inline Interval median_ci95(std::vector<double> v) {
  const int R = static_cast<int>(v.size());
  int k = 0;
  double term = std::pow(0.5, R), tail = term;
  for (int j = 0; j < R && tail <= 0.025; ++j) {
    k = j + 1;
    term *= static_cast<double>(R - j) / (j + 1);
    tail += term;
  }
  std::sort(v.begin(), v.end());
  return k ? Interval{v[k - 1], v[R - k]} : Interval{NAN, NAN};
}
