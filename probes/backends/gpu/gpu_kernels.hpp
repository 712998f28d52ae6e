// Kernels of the GPU backends (compiled by nvcc and by hipcc from this one
// source). The logic lives in writer_protocol.hpp; here are only the Teams
// that map it onto a block or a cooperative grid, and the launch wrappers.
#pragma once

#include "probes/device/portability.hpp"
#include "probes/halo/halo_protocol.hpp"
#include "probes/signal/signal_protocol.hpp"
#include "probes/writer/writer_protocol.hpp"

namespace hetprobe::HETPROBE_BACKEND_NS {

// A pinned flag of this device (set by GpuDevice when it opens) that, once
// non-zero, ends every signal and halo wait: a stopped run (Ctrl-C) or a closing
// device must not wait out a kernel's own --timeout.
__device__ const unsigned long long* g_abandon_waits = nullptr;

// The ops run_signal() expects, on one device thread; atomics at system scope.
struct GpuSignalOps {
  // Inside a wait (device_wait.hpp): false once the host abandoned the waits.
  // Read only after about a millisecond of waiting (2^20 ticks: 1 ms of
  // globaltimer ns, 10 ms at 100 MHz), so no measured wait makes an extra
  // read, and then once per such period: a read of pinned memory on every
  // poll of hundreds of waiting halo parts filled the link with reads, and a
  // halo unpack saw its flag 120-350 us late (cube 800, two H100s).
  __device__ bool pause_in_wait(std::uint64_t waited_ticks) {
    constexpr std::uint64_t kPeriod = 1ull << 20;
    if (waited_ticks < kPeriod || g_abandon_waits == nullptr) {
      next_abandon_read = kPeriod;  // a new wait
      return true;
    }
    if (waited_ticks < next_abandon_read) return true;
    next_abandon_read = waited_ticks + kPeriod;
    return *static_cast<const volatile unsigned long long*>(g_abandon_waits) == 0;
  }
  std::uint64_t next_abandon_read = 1ull << 20;  // this thread's wait reads the flag again at this many ticks
  __device__ std::uint64_t timer() const { return gpu::device_timer(); }
  __device__ void fence_system() { __threadfence_system(); }
  __device__ void fence_device() { __threadfence(); }
  __device__ unsigned long long load_volatile(const unsigned long long* p) {
    return *static_cast<const volatile unsigned long long*>(p);
  }
  __device__ unsigned long long load_relaxed(const unsigned long long* p) { return gpu::load_relaxed_system(p); }
  __device__ unsigned long long load_acquire(const unsigned long long* p) { return gpu::load_acquire_system(p); }
  __device__ void store_volatile(unsigned long long* p, unsigned long long v) {
    *static_cast<volatile unsigned long long*>(p) = v;
  }
  __device__ void store_relaxed(unsigned long long* p, unsigned long long v) { gpu::store_relaxed_system(p, v); }
  __device__ void store_release(unsigned long long* p, unsigned long long v) { gpu::store_release_system(p, v); }
};

// The writer's team ops: the same flag accesses, plus the team's broadcast slots.
struct GpuTeamOps : GpuSignalOps {
  // Broadcast slots in device memory, read after a barrier that orders them.
  __device__ unsigned long long read_shared(unsigned long long* p) {
    return *static_cast<volatile unsigned long long*>(p);
  }
  __device__ void write_shared(unsigned long long* p, unsigned long long v) {
    *static_cast<volatile unsigned long long*>(p) = v;
  }
};

// stream access: one block.
struct BlockTeam : GpuTeamOps {
  __device__ std::uint64_t rank() const { return threadIdx.x; }
  __device__ std::uint64_t size() const { return blockDim.x; }
  __device__ void sync() { __syncthreads(); }
};

// stacked access: the whole cooperative grid.
struct GridTeam : GpuTeamOps {
  cooperative_groups::grid_group grid;
  __device__ std::uint64_t rank() const { return grid.thread_rank(); }
  __device__ std::uint64_t size() const { return grid.size(); }
  __device__ void sync() { grid.sync(); }
};

__global__ void writer_stream_kernel(WriterArgs args) {
  BlockTeam team;
  run_writer(team, args);
}

__global__ void writer_stacked_kernel(WriterArgs args) {
  GridTeam team{{}, cooperative_groups::this_grid()};
  run_writer(team, args);
}

// The reference: one plain pass, one word per thread, no flags, no barrier.
__global__ void plain_write_kernel(unsigned char* dst, std::uint64_t bytes) {
  const std::uint64_t rank = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  write_region(dst, bytes, PostValue{0}, rank, std::uint64_t(gridDim.x) * blockDim.x);
}

// The read reference: one plain pass, one 16-byte unit per thread (from a
// 16-aligned start; a tail under 16 bytes is not read).
__global__ void plain_read_kernel(const unsigned char* src, std::uint64_t bytes, unsigned long long* sink) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= bytes / 16) return;
  const auto v = *reinterpret_cast<const ulonglong2*>(src + 16 * i);
  if ((v.x ^ v.y) == 0x5EED5EED5EED5EEDull) atomicAdd(sink, 1);  // never in practice; keeps the load
}

__global__ void read_timer_kernel(unsigned long long* out) { *out = gpu::device_timer(); }

// Launched 1x1: the notification and clock probes' device thread.
__global__ void signal_kernel(SignalArgs args) {
  GpuSignalOps ops;
  run_signal(ops, args);
}

// Halo stages: block b is team b of halo_part_of (one part of a message),
// then b + gridDim.x, ... when the grid is smaller than the teams.
struct HaloTeamOps {
  __device__ void add_shared(unsigned long long* p, unsigned long long x) { atomicAdd(p, x); }
  // The task queue's tail and the parts' states live in device memory and only the GPU touches them.
  __device__ unsigned long long compare_swap(unsigned long long* p, unsigned long long expected,
                                             unsigned long long desired) {
    return atomicCAS(p, expected, desired);
  }
  __device__ unsigned long long fetch_add(unsigned long long* p, unsigned long long x) { return atomicAdd(p, x); }
  __device__ unsigned long long fetch_min(unsigned long long* p, unsigned long long x) { return atomicMin(p, x); }
  __device__ unsigned long long fetch_max(unsigned long long* p, unsigned long long x) { return atomicMax(p, x); }
  __device__ void relax(unsigned long long ticks) {
    if (ticks != 0) gpu::pause(ticks);
  }
};
struct HaloBlockTeam : BlockTeam, HaloTeamOps {};
struct HaloGridTeam : GridTeam, HaloTeamOps {};

// The message table is in pinned host memory: every warp reading it would be
// a PCIe read per field, so each block copies it to shared memory, one entry
// per thread.
__device__ inline void halo_copy_messages(HaloMessageArgs* to, const HaloMessageArgs* from, std::uint64_t n) {
  for (std::uint64_t i = threadIdx.x; i < n; i += blockDim.x) to[i] = from[i];
  __syncthreads();
}

// Launched with args.count message tables of dynamic shared memory.
__global__ void halo_pack_kernel(HaloArgs args) {
  extern __shared__ HaloMessageArgs pack_table[];
  halo_copy_messages(pack_table, args.messages, args.count);
  HaloBlockTeam team;
  halo_pack_teams(team, args, pack_table, blockIdx.x, gridDim.x);
}

__global__ void halo_unpack_kernel(HaloArgs args) {
  extern __shared__ HaloMessageArgs unpack_table[];
  __shared__ unsigned long long slot;
  halo_copy_messages(unpack_table, args.messages, args.count);
  HaloBlockTeam team;
  halo_unpack_teams(team, args, unpack_table, &slot, blockIdx.x, gridDim.x);
}

// notify-stacked: launched cooperatively with every co-resident block and
// (pack.count + unpack.count) message tables of dynamic shared memory;
// grid_slot is one word of device memory.
__global__ void halo_stacked_kernel(HaloArgs pack, HaloArgs unpack, unsigned long long* grid_slot) {
  extern __shared__ HaloMessageArgs tables[];
  __shared__ unsigned long long slot;
  halo_copy_messages(tables, pack.messages, pack.count);
  halo_copy_messages(tables + pack.count, unpack.messages, unpack.count);
  HaloBlockTeam block;
  HaloGridTeam grid{{{}, cooperative_groups::this_grid()}, {}};
  halo_stacked(grid, block, blockIdx.x, gridDim.x, pack, tables, unpack, tables + pack.count, &slot, grid_slot);
}

// The launch mechanisms' kernels: one that only exists, one that answers.
__global__ void empty_kernel() {}
__global__ void ack_kernel(unsigned long long* ack, unsigned long long seq) { gpu::store_release_system(ack, seq); }

}  // namespace hetprobe::HETPROBE_BACKEND_NS
