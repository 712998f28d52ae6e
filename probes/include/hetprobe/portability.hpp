// The one place that names CUDA or HIP.
//
// Under a GPU compiler (nvcc, hipcc) it pulls in that runtime and maps the few
// names the backend and kernels use onto it; under a plain host compiler it
// only defines HETPROBE_HD as nothing, so logic shared with the host backend
// (probes/include/hetprobe/writer_protocol.hpp) compiles there unchanged.
#pragma once

#if defined(__HIPCC__)
#define HETPROBE_GPU_COMPILER 1
#include <string>
// clang-format off: the runtime must come first
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
// clang-format on
#define HETPROBE_HD __host__ __device__
#define HETPROBE_BACKEND_NAME "hip"
#define HETPROBE_BACKEND_NS hip_backend
#define HP_RT(name) hip##name
namespace hetprobe::gpu {
using Error = hipError_t;
using DeviceProp = hipDeviceProp_t;
using Stream = hipStream_t;
using Event = hipEvent_t;
using FuncAttributes = hipFuncAttributes;
// HIP_VERSION style: major * 10^7 + minor * 10^5 + patch.
inline std::string format_version(int v) {
  return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." +
         std::to_string(v % 100000);
}
inline constexpr unsigned kHostAllocMapped = hipHostMallocMapped | hipHostMallocPortable;
inline Error host_alloc(void** p, size_t bytes) { return hipHostMalloc(p, bytes, kHostAllocMapped); }
inline Error host_free(void* p) { return hipHostFree(p); }
// s_memrealtime: a constant-rate counter (100 MHz on current parts); its rate is
// measured at run time, never assumed.
__device__ inline unsigned long long device_timer() { return __builtin_amdgcn_s_memrealtime(); }
__device__ inline unsigned long long load_acquire_system(const unsigned long long* p) {
  return __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ inline void store_release_system(unsigned long long* p, unsigned long long v) {
  __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ inline void store_relaxed_system(unsigned long long* p, unsigned long long v) {
  __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
}  // namespace hetprobe::gpu

#elif defined(__CUDACC__)
#define HETPROBE_GPU_COMPILER 1
#include <string>
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_runtime.h>
#define HETPROBE_HD __host__ __device__
#define HETPROBE_BACKEND_NAME "cuda"
#define HETPROBE_BACKEND_NS cuda_backend
#define HP_RT(name) cuda##name
namespace hetprobe::gpu {
using Error = cudaError_t;
using DeviceProp = cudaDeviceProp;
using Stream = cudaStream_t;
using Event = cudaEvent_t;
using FuncAttributes = cudaFuncAttributes;
// CUDA style: major * 1000 + minor * 10.
inline std::string format_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}
inline Error host_alloc(void** p, size_t bytes) {
  return cudaHostAlloc(p, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
}
inline Error host_free(void* p) { return cudaFreeHost(p); }
// %globaltimer: nanoseconds by specification, updated every 32 ns or coarser.
__device__ inline unsigned long long device_timer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
using SystemRef = cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>;
__device__ inline unsigned long long load_acquire_system(const unsigned long long* p) {
  return SystemRef(*const_cast<unsigned long long*>(p)).load(cuda::memory_order_acquire);
}
__device__ inline void store_release_system(unsigned long long* p, unsigned long long v) {
  SystemRef(*p).store(v, cuda::memory_order_release);
}
__device__ inline void store_relaxed_system(unsigned long long* p, unsigned long long v) {
  SystemRef(*p).store(v, cuda::memory_order_relaxed);
}
}  // namespace hetprobe::gpu

#else
#define HETPROBE_HD
#endif

#if defined(HETPROBE_GPU_COMPILER)
#include <string>

#include "hetprobe/errors.hpp"
namespace hetprobe::gpu {
inline const char* error_name(Error e) { return HP_RT(GetErrorName)(e); }
inline const char* error_text(Error e) { return HP_RT(GetErrorString)(e); }
inline constexpr Error kSuccess = HP_RT(Success);
}  // namespace hetprobe::gpu

// Checks a runtime call; throws a device Error naming the expression, the
// vendor's error name and the caller's file and line.
#define HP_CHECK(expr)                                                                  \
  do {                                                                                  \
    const ::hetprobe::gpu::Error hp_err_ = (expr);                                      \
    if (hp_err_ != ::hetprobe::gpu::kSuccess)                                           \
      throw ::hetprobe::Error(::hetprobe::ErrorKind::device,                            \
                              std::string(#expr) + " failed: " +                        \
                                  ::hetprobe::gpu::error_name(hp_err_) + " (" +         \
                                  ::hetprobe::gpu::error_text(hp_err_) + ")");          \
  } while (0)
#endif
