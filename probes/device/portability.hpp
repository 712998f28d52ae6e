// The one place that names CUDA or HIP.
//
// Under a GPU compiler (nvcc, hipcc) it pulls in that runtime and maps the few
// names the backend and kernels use onto it (once, through HP_RT, where the two
// runtimes name a thing alike); under a plain host compiler it
// only defines HETPROBE_HD as nothing, so logic shared with the host backend
// (probes/writer/writer_protocol.hpp) compiles there unchanged.
#pragma once

#if defined(__HIPCC__)
#define HETPROBE_GPU_COMPILER 1
#include <dlfcn.h>

#include <string>
// clang-format off: the runtime must come first
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
// clang-format on
#define HETPROBE_BACKEND_NAME "hip"
#define HETPROBE_RUNTIME_NAME "HIP"  // in messages
#define HETPROBE_BACKEND_NS hip_backend
#define HP_RT(name) hip##name
#elif defined(__CUDACC__)
#define HETPROBE_GPU_COMPILER 1
#include <cooperative_groups.h>
#include <cuda.h>  // types of the driver's stream memory operations, found at run time
#include <cuda_runtime.h>
#include <cuda/atomic>
#include <string>
#define HETPROBE_BACKEND_NAME "cuda"
#define HETPROBE_RUNTIME_NAME "CUDA"  // in messages
#define HETPROBE_BACKEND_NS cuda_backend
#define HP_RT(name) cuda##name
#endif

#if defined(HETPROBE_GPU_COMPILER)
#include <string>

#include "base/errors.hpp"
#define HETPROBE_HD __host__ __device__
namespace hetprobe::gpu {
// The names both runtimes give alike (hipError_t, cudaError_t), mapped once.
using Error = HP_RT(Error_t);
using Stream = HP_RT(Stream_t);
using Event = HP_RT(Event_t);
using FuncAttributes = HP_RT(FuncAttributes);
inline const char* error_name(Error e) { return HP_RT(GetErrorName)(e); }
inline const char* error_text(Error e) { return HP_RT(GetErrorString)(e); }
inline constexpr Error kSuccess = HP_RT(Success);
// What the runtime answers on a machine without a GPU: no device, or no driver
// (also a driver older than the runtime).
inline constexpr Error kNoDevice = HP_RT(ErrorNoDevice);
inline constexpr Error kInsufficientDriver = HP_RT(ErrorInsufficientDriver);
}  // namespace hetprobe::gpu

// Checks a runtime call; throws a device Error naming the expression, the
// vendor's error name and the caller's file and line.
#define HP_CHECK(expr)                                                                                                \
  do {                                                                                                                \
    const ::hetprobe::gpu::Error hp_err_ = (expr);                                                                    \
    if (hp_err_ != ::hetprobe::gpu::kSuccess)                                                                         \
      throw ::hetprobe::Error(::hetprobe::ErrorKind::device, std::string(#expr) +                                     \
                                                                 " failed: " + ::hetprobe::gpu::error_name(hp_err_) + \
                                                                 " (" + ::hetprobe::gpu::error_text(hp_err_) + ")");  \
  } while (0)
#else
#define HETPROBE_HD
#endif

#if defined(__HIPCC__)
namespace hetprobe::gpu {
using DeviceProp = hipDeviceProp_t;
// The hardware queues streams map onto, and how many the backend asks for.
inline constexpr const char* kHardwareQueuesVariable = "GPU_MAX_HW_QUEUES";
inline constexpr const char* kHardwareQueues = "8";
// HIP_VERSION style: major * 10^7 + minor * 10^5 + patch.
inline std::string format_version(int v) {
  return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." + std::to_string(v % 100000);
}
inline constexpr unsigned kHostAllocMapped = hipHostMallocMapped | hipHostMallocPortable;
inline Error host_alloc(void** p, size_t bytes) { return hipHostMalloc(p, bytes, kHostAllocMapped); }
// Fine-grained (coherent) or coarse-grained (non-coherent) pinned memory.
inline constexpr bool kHasHostCoherenceFlags = true;
// s_memrealtime counts at a fixed rate (100 MHz on MI-series), not in ns.
inline constexpr bool kTimerCountsNs = false;
inline Error host_alloc_coherence(void** p, size_t bytes, bool coherent) {
  return hipHostMalloc(p, bytes, kHostAllocMapped | (coherent ? hipHostMallocCoherent : hipHostMallocNonCoherent));
}
// Stream memory operations; "" on success, else why not.
inline std::string stream_write_value64(Stream s, unsigned long long* dev, unsigned long long v) {
  const Error e = hipStreamWriteValue64(s, dev, v, 0);
  return e == hipSuccess ? "" : std::string("hipStreamWriteValue64: ") + hipGetErrorName(e);
}
// Declared by every HIP but exported only by newer runtimes (Debian's 5.2 lacks
// it): looked up at run time. "" on success, else why not.
inline std::string launch_host_func(Stream s, void (*fn)(void*), void* data) {
  using Fn = hipError_t (*)(hipStream_t, hipHostFn_t, void*);
  static const auto launch = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "hipLaunchHostFunc"));
  if (launch == nullptr) return "hipLaunchHostFunc is not exported by this HIP runtime";
  const Error e = launch(s, fn, data);
  return e == hipSuccess ? "" : std::string("hipLaunchHostFunc: ") + hipGetErrorName(e);
}
inline std::string stream_wait_value64_geq(Stream s, unsigned long long* dev, unsigned long long v) {
  const Error e = hipStreamWaitValue64(s, dev, v, hipStreamWaitValueGte, ~0ull);
  return e == hipSuccess ? "" : std::string("hipStreamWaitValue64: ") + hipGetErrorName(e);
}
inline Error host_free(void* p) { return hipHostFree(p); }
// s_memrealtime: a constant-rate counter (100 MHz on current parts); its rate is
// measured at run time, never assumed.
__device__ inline unsigned long long device_timer() { return __builtin_amdgcn_s_memrealtime(); }
// Sleeps about `ticks` of device_timer: a poll's pause (fewer reads of host memory).
__device__ inline void pause(unsigned long long ticks) {
  for (const unsigned long long t0 = device_timer(); device_timer() - t0 < ticks;) __builtin_amdgcn_s_sleep(1);
}
__device__ inline unsigned long long load_acquire_system(const unsigned long long* p) {
  return __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ inline unsigned long long load_relaxed_system(const unsigned long long* p) {
  return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ inline void store_release_system(unsigned long long* p, unsigned long long v) {
  __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}
__device__ inline void store_relaxed_system(unsigned long long* p, unsigned long long v) {
  __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
// A group of 32 lanes (half a wavefront on AMD) agreeing on a value of lane 0;
// a wavefront runs in lockstep, so it needs no barrier.
__device__ inline unsigned long long lanes_broadcast(unsigned long long v) { return __shfl(v, 0, 32); }
__device__ inline void lanes_sync() {}
// 16 bytes loaded from memory, never from a cache that may hold an older copy
// (a read load must cross the link every pass); the two words XORed.
__device__ inline unsigned long long load_fresh16_xor(const unsigned char* p) {
  const auto* w = reinterpret_cast<const volatile unsigned long long*>(p);
  return w[0] ^ w[1];
}
}  // namespace hetprobe::gpu

#elif defined(__CUDACC__)
namespace hetprobe::gpu {
using DeviceProp = cudaDeviceProp;
// The hardware queues streams map onto, and how many the backend asks for (CUDA's most).
inline constexpr const char* kHardwareQueuesVariable = "CUDA_DEVICE_MAX_CONNECTIONS";
inline constexpr const char* kHardwareQueues = "32";
// CUDA style: major * 1000 + minor * 10.
inline std::string format_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }
inline Error host_alloc(void** p, size_t bytes) {
  return cudaHostAlloc(p, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
}
inline Error host_free(void* p) { return cudaFreeHost(p); }
inline constexpr bool kHasHostCoherenceFlags = false;
// %globaltimer counts nanoseconds by specification.
inline constexpr bool kTimerCountsNs = true;
inline Error host_alloc_coherence(void** p, size_t bytes, bool) { return host_alloc(p, bytes); }
// Stream memory operations live in the driver API: found through the runtime
// at run time, so the binary does not link libcuda (CI has none). "" on success.
template <class Fn>
inline std::string driver_entry(const char* symbol, Fn*& fn) {
  cudaDriverEntryPointQueryResult found{};
  void* p = nullptr;
  const cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &found);
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || p == nullptr)
    return std::string(symbol) + " not found in the driver";
  fn = reinterpret_cast<Fn*>(p);
  return "";
}
inline std::string driver_result(const char* what, CUresult r) {
  return r == CUDA_SUCCESS ? "" : std::string(what) + " failed with CUresult " + std::to_string(static_cast<int>(r));
}
inline std::string launch_host_func(Stream s, void (*fn)(void*), void* data) {
  const Error e = cudaLaunchHostFunc(s, fn, data);
  return e == cudaSuccess ? "" : std::string("cudaLaunchHostFunc: ") + cudaGetErrorName(e);
}
inline std::string stream_write_value64(Stream s, unsigned long long* dev, unsigned long long v) {
  CUresult (*fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned) = nullptr;
  if (std::string why = driver_entry("cuStreamWriteValue64", fn); !why.empty()) return why;
  return driver_result("cuStreamWriteValue64", fn(s, reinterpret_cast<CUdeviceptr>(dev), v, 0));
}
inline std::string stream_wait_value64_geq(Stream s, unsigned long long* dev, unsigned long long v) {
  CUresult (*fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned) = nullptr;
  if (std::string why = driver_entry("cuStreamWaitValue64", fn); !why.empty()) return why;
  return driver_result("cuStreamWaitValue64", fn(s, reinterpret_cast<CUdeviceptr>(dev), v, CU_STREAM_WAIT_VALUE_GEQ));
}
// %globaltimer: nanoseconds by specification, updated every 32 ns or coarser.
__device__ inline unsigned long long device_timer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// Sleeps about `ticks` of device_timer: a poll's pause (fewer reads of host memory).
__device__ inline void pause(unsigned long long ticks) {
  for (const unsigned long long t0 = device_timer(); device_timer() - t0 < ticks;) __nanosleep(100);
}
using SystemRef = cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>;
__device__ inline unsigned long long load_acquire_system(const unsigned long long* p) {
  return SystemRef(*const_cast<unsigned long long*>(p)).load(cuda::memory_order_acquire);
}
__device__ inline unsigned long long load_relaxed_system(const unsigned long long* p) {
  return SystemRef(*const_cast<unsigned long long*>(p)).load(cuda::memory_order_relaxed);
}
__device__ inline void store_release_system(unsigned long long* p, unsigned long long v) {
  SystemRef(*p).store(v, cuda::memory_order_release);
}
__device__ inline void store_relaxed_system(unsigned long long* p, unsigned long long v) {
  SystemRef(*p).store(v, cuda::memory_order_relaxed);
}
// A warp agreeing on a value of lane 0, and a warp barrier.
__device__ inline unsigned long long lanes_broadcast(unsigned long long v) { return __shfl_sync(0xFFFFFFFFu, v, 0); }
__device__ inline void lanes_sync() { __syncwarp(); }
// 16 bytes loaded "cache as volatile" (ld.global.cv: fetched again, never a
// stale cached copy), so a read load crosses the link every pass; XORed.
__device__ inline unsigned long long load_fresh16_xor(const unsigned char* p) {
  const ulonglong2 v = __ldcv(reinterpret_cast<const ulonglong2*>(p));
  return v.x ^ v.y;
}
}  // namespace hetprobe::gpu

#endif
