// The reference hetprobe halo's unpack rate is checked against: the barest
// copy from pinned host memory into device memory by blocks of 128 threads,
// 16-byte loads (4 in flight a thread, as hetprobe's), no flags, no checks,
// timed on the GPU from the first block's start to the last block's end (what
// a halo stamp measures), median of 50 launches (CUDA only; built and run by
// tests/gpu/halo.sh, compared by tests/gpu/compare_unpack.py).
// - "one": one message of B bytes, unpacked by 1, 8, 32 or 128 blocks;
// - "stage": a stage as hetprobe's unpacks one: 6 messages of B bytes (a
//   cube's faces) side by side, each cut into parts of P bytes, one block a
//   part, all at once; its rate is the stage's bytes over its time, and each
//   message's own rate (its first part's start to its last part's end) is
//   given as their median. On one GPU alone, and on two at once where there
//   are two: hetprobe halo's two ranks unpack at the same time, and GPUs
//   reading host memory at once share it.
// - "fresh": the same stage, its messages written by the CPU just before each
//   launch (a memset of the whole stage).
// - "received": the same stage, received with MPI just before each launch,
//   as hetprobe halo's baseline does: two ranks (mpirun -np 2, a GPU each
//   where there are two) each send 6 faces to the other (MPI_Isend and
//   MPI_Irecv between pinned buffers, MPI_Waitall), then unpack what they
//   received; one rank sends them to itself (tests/gpu/halo_parts.sh's
//   layout). This is hetprobe's condition: the GPU reads lines MPI has just
//   written, which the CPU's caches may still hold, as "fresh" shows.
// - "sent": the same, the faces sent with blocking MPI_Send one after the
//   other (hetprobe halo --send send) instead of MPI_Isend.
// - "cycle-isend", "cycle-send": hetprobe halo's whole baseline iteration,
//   a pack first (the same blocks write the faces from device memory into the
//   pinned send buffer), then the exchange (MPI_Isend or blocking MPI_Send),
//   then the unpack, each iteration after a barrier, its receives posted
//   before the pack (as hetprobe's); a
//   "bare pack" line gives the pack stage's rate. "cycle-*-flush": the CPU
//   flushes the exchanged lines from its caches (clflush) before the pack and
//   before the unpack: where the CPU's caches holding them slow the GPU, the
//   difference shows it (x86 only).
// Every configuration runs 5 untimed launches first (warm-up). The block
// table and the stamps live in device memory and are copied (untimed): in
// managed memory, each launch's stamps faulted their pages back to the GPU
// inside the timed span.
// Modes but "received" run on rank 0 alone while the other rank waits.
#include <cuda_runtime.h>
#include <mpi.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

__device__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Block b copies units [first[b], first[b + 1]) of the stage from `in` to
// `out`, kUnroll loads in flight per thread, as hetprobe's pack and unpack
// have (kHaloUnroll): the unpack from host into device memory, the pack
// (ToHost) the other way, its stores fenced into host memory before the end
// stamp, as a halo pack's are.
constexpr unsigned kUnroll = 4;
template <bool ToHost>
__global__ void copy_stage(const ulonglong2* in, ulonglong2* out, const unsigned long long* first,
                           unsigned long long* stamps) {
  if (threadIdx.x == 0) stamps[2 * blockIdx.x] = now();
  const unsigned long long end = first[blockIdx.x + 1], stride = blockDim.x;
  for (unsigned long long u = first[blockIdx.x] + threadIdx.x; u < end; u += stride * kUnroll) {
    ulonglong2 v[kUnroll];
    for (unsigned k = 0; k < kUnroll; ++k)
      if (u + k * stride < end) v[k] = in[u + k * stride];
    for (unsigned k = 0; k < kUnroll; ++k)
      if (u + k * stride < end) out[u + k * stride] = v[k];
  }
  if constexpr (ToHost) __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) stamps[2 * blockIdx.x + 1] = now();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Evicts [p, p + bytes) from the CPU's caches; false where it cannot.
bool flush(const unsigned char* p, unsigned long long bytes) {
#if defined(__x86_64__)
  for (unsigned long long i = 0; i < bytes; i += 64) _mm_clflush(p + i);
  _mm_mfence();
  return true;
#else
  (void)p, (void)bytes;
  return false;
#endif
}

// One GPU's buffers: its own pinned host memory (where its unpack reads), its
// device memory, the blocks' first units and their stamps (device memory).
constexpr int kMostBlocks = 8192;
struct Gpu {
  int ordinal = 0;
  unsigned char* host = nullptr;  // `in` as the CPU sees it
  ulonglong2 *in = nullptr, *out = nullptr;
  unsigned long long *first = nullptr, *stamps = nullptr, *pack_stamps = nullptr;
};

bool setup(int ordinal, unsigned long long most, Gpu& g) {
  g.ordinal = ordinal;
  return cudaSetDevice(ordinal) == cudaSuccess &&
         cudaHostAlloc(reinterpret_cast<void**>(&g.host), most, cudaHostAllocMapped) == cudaSuccess &&
         cudaHostGetDevicePointer(reinterpret_cast<void**>(&g.in), g.host, 0) == cudaSuccess &&
         cudaMalloc(reinterpret_cast<void**>(&g.out), most) == cudaSuccess &&
         cudaMalloc(reinterpret_cast<void**>(&g.first), (kMostBlocks + 1) * sizeof(unsigned long long)) ==
             cudaSuccess &&
         cudaMalloc(reinterpret_cast<void**>(&g.stamps), 2 * kMostBlocks * sizeof(unsigned long long)) == cudaSuccess &&
         cudaMalloc(reinterpret_cast<void**>(&g.pack_stamps), 2 * kMostBlocks * sizeof(unsigned long long)) ==
             cudaSuccess;
}

// hetprobe halo's baseline exchange with `peer`: every receive (into
// `receive`) posted, every send (from `send`) posted or, `blocking`, sent
// one after the other, then the receives waited for.
std::vector<MPI_Request> post_receives(int peer, unsigned char* receive, int messages, unsigned long long bytes) {
  std::vector<MPI_Request> requests(2 * messages, MPI_REQUEST_NULL);
  for (int m = 0; m < messages; ++m)
    MPI_Irecv(receive + m * bytes, static_cast<int>(bytes), MPI_BYTE, peer, m, MPI_COMM_WORLD, &requests[m]);
  return requests;
}
void exchange(int peer, unsigned char* receive, const unsigned char* send, int messages, unsigned long long bytes,
              bool blocking, std::vector<MPI_Request> requests = {}) {
  if (requests.empty()) requests = post_receives(peer, receive, messages, bytes);
  for (int m = 0; m < messages; ++m) {
    if (blocking) MPI_Send(send + m * bytes, static_cast<int>(bytes), MPI_BYTE, peer, m, MPI_COMM_WORLD);
    else
      MPI_Isend(send + m * bytes, static_cast<int>(bytes), MPI_BYTE, peer, m, MPI_COMM_WORLD, &requests[messages + m]);
  }
  MPI_Waitall(2 * messages, requests.data(), MPI_STATUSES_IGNORE);
}

// Units of 16 B; `messages` of `bytes` each, cut into `part` bytes (0: a
// message's bytes over `blocks_per_message` blocks), unpacked by each of
// `gpus` at once (hetprobe halo's ranks unpack at the same time); timed on
// the first. Mode "fresh": the CPU writes the messages just before each
// launch (untimed): the GPU then reads lines the CPU's caches hold. Mode
// "received": this rank and its partner exchange the messages with MPI just
// before each launch (untimed; `send` holds this rank's). Modes "cycle-*":
// the GPU packs `send` first (timed too). Prints one line on rank 0 (two for
// a cycle).
bool run(const char* mode, std::vector<Gpu>& gpus, int messages, unsigned long long bytes, unsigned long long part,
         int blocks_per_message, unsigned char* send = nullptr) {
  const bool fresh = std::strcmp(mode, "fresh") == 0, cycle = std::strncmp(mode, "cycle", 5) == 0,
             blocking = std::strcmp(mode, "sent") == 0 || std::strncmp(mode, "cycle-send", 10) == 0,
             flushed = std::strstr(mode, "-flush") != nullptr;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int peer = ranks == 2 ? rank ^ 1 : rank;
  constexpr int reps = 50, warmup = 5, threads = 128;
  const unsigned long long units = bytes / 16;
  std::vector<int> message_of;
  std::vector<unsigned long long> first;
  for (int m = 0; m < messages; ++m) {
    const unsigned long long step = part ? part / 16 : (units + blocks_per_message - 1) / blocks_per_message;
    for (unsigned long long u = 0; u < units; u += step) {
      first.push_back(m * units + u);
      message_of.push_back(m);
    }
  }
  const int blocks = static_cast<int>(first.size());
  first.push_back(messages * units);
  if (blocks > kMostBlocks || (flushed && !flush(send, 0))) return true;  // not on this machine: no line
  for (Gpu& g : gpus)
    if (cudaSetDevice(g.ordinal) != cudaSuccess ||
        cudaMemcpy(g.first, first.data(), first.size() * sizeof(first[0]), cudaMemcpyHostToDevice) != cudaSuccess)
      return false;
  std::vector<double> stage_ns, message_gbs, pack_ns;
  if (gpus.empty()) {  // received on one GPU: rank 1 exchanges only, into a buffer of its own
    std::vector<unsigned char> own(messages * bytes);
    for (int r = 0; r < warmup + reps; ++r) {
      if (cycle) MPI_Barrier(MPI_COMM_WORLD);
      exchange(peer, own.data(), send, messages, bytes, blocking);
    }
    return true;
  }
  std::vector<unsigned long long> stamps(2 * blocks), pack_stamps(2 * blocks);
  for (int r = -warmup; r < reps; ++r) {
    if (fresh)
      for (Gpu& g : gpus) std::memset(g.host, r + warmup + 1, messages * bytes);
    std::vector<MPI_Request> posted;
    if (cycle) {  // one GPU a rank (gpus[0]); `send` is pinned, so the GPU writes it directly
      if (flushed) flush(send, messages * bytes);
      MPI_Barrier(MPI_COMM_WORLD);
      posted = post_receives(peer, gpus[0].host, messages, bytes);  // before the pack, as hetprobe's
      cudaSetDevice(gpus[0].ordinal);
      copy_stage<true>
          <<<blocks, threads>>>(gpus[0].out, reinterpret_cast<ulonglong2*>(send), gpus[0].first, gpus[0].pack_stamps);
      if (cudaDeviceSynchronize() != cudaSuccess) return false;
    }
    if (send) exchange(peer, gpus[0].host, send, messages, bytes, blocking, std::move(posted));
    if (flushed) flush(gpus[0].host, messages * bytes);
    for (Gpu& g : gpus) {
      cudaSetDevice(g.ordinal);
      copy_stage<false><<<blocks, threads>>>(g.in, g.out, g.first, g.stamps);
    }
    for (Gpu& g : gpus)
      if (cudaSetDevice(g.ordinal) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) return false;
    if (r < 0) continue;
    cudaSetDevice(gpus[0].ordinal);
    if (cudaMemcpy(stamps.data(), gpus[0].stamps, stamps.size() * 8, cudaMemcpyDeviceToHost) != cudaSuccess ||
        (cycle && cudaMemcpy(pack_stamps.data(), gpus[0].pack_stamps, pack_stamps.size() * 8, cudaMemcpyDeviceToHost) !=
                      cudaSuccess))
      return false;
    unsigned long long begin = ~0ull, end = 0, pack_begin = ~0ull, pack_end = 0;
    std::vector<unsigned long long> m_begin(messages, ~0ull), m_end(messages, 0);
    for (int b = 0; b < blocks; ++b) {
      const int m = message_of[b];
      begin = std::min(begin, stamps[2 * b]), end = std::max(end, stamps[2 * b + 1]);
      m_begin[m] = std::min(m_begin[m], stamps[2 * b]), m_end[m] = std::max(m_end[m], stamps[2 * b + 1]);
      if (cycle)
        pack_begin = std::min(pack_begin, pack_stamps[2 * b]), pack_end = std::max(pack_end, pack_stamps[2 * b + 1]);
    }
    stage_ns.push_back(static_cast<double>(end - begin));
    if (cycle) pack_ns.push_back(static_cast<double>(pack_end - pack_begin));
    for (int m = 0; m < messages; ++m) message_gbs.push_back(bytes / static_cast<double>(m_end[m] - m_begin[m]));
  }
  const double ns = median(stage_ns);
  if (rank != 0) return true;
  int count = 1;
  cudaGetDeviceCount(&count);
  const std::size_t at_once = send ? std::min(ranks, count) : gpus.size();  // received: a GPU a rank, if there are two
  std::printf(
      "bare unpack %-8s %d x %7llu B, parts %6llu B, %4d blocks x %d threads, %zu GPU(s) at once: median "
      "%9.1f ns, %6.2f GB/s; a message %6.2f GB/s (%d launches)\n",
      mode, messages, bytes, part ? part : (bytes + blocks_per_message - 1) / blocks_per_message, blocks, threads,
      at_once, ns, messages * bytes / ns, median(message_gbs), reps);
  if (cycle)
    std::printf("bare pack   %-16s %d x %7llu B, %4d blocks x %d threads: median %9.1f ns, %6.2f GB/s\n", mode,
                messages, bytes, blocks, threads, median(pack_ns), messages * bytes / median(pack_ns));
  return true;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  constexpr int faces = 6;
  const unsigned long long most = faces * 960000ull;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) MPI_Abort(MPI_COMM_WORLD, 1);
  bool ok = true;
  if (rank == 0) {
    std::vector<Gpu> all(std::min(count, 2));  // a halo run of two ranks: two GPUs at once
    for (std::size_t d = 0; d < all.size(); ++d)
      if (!setup(static_cast<int>(d), most, all[d])) MPI_Abort(MPI_COMM_WORLD, 1);
    std::vector<Gpu> alone(all.begin(), all.begin() + 1);
    for (unsigned long long bytes : {60000ull, 240000ull, 960000ull}) {
      for (int blocks : {1, 8, 32, 128}) ok = ok && run("one", alone, 1, bytes, 0, blocks);
      for (unsigned long long part : {65536ull, 32768ull, 16384ull}) {
        for (const char* mode : {"stage", "fresh"}) {
          ok = ok && run(mode, alone, faces, bytes, part, 0);
          if (all.size() > 1) ok = ok && run(mode, all, faces, bytes, part, 0);
        }
      }
    }
  }
  MPI_Bcast(&ok, 1, MPI_CXX_BOOL, 0, MPI_COMM_WORLD);
  // Each rank unpacks on its own GPU, as hetprobe halo's ranks do. On one GPU,
  // rank 1 only exchanges: two processes' kernels on one GPU take turns.
  if (ranks <= 2 && ok) {
    std::vector<Gpu> mine(rank < count ? 1 : 0);
    unsigned char* send = nullptr;
    ok = (mine.empty() || setup(rank, most, mine[0])) &&
         cudaHostAlloc(reinterpret_cast<void**>(&send), most, cudaHostAllocMapped) == cudaSuccess;
    if (ok) std::memset(send, rank + 1, most);
    for (unsigned long long bytes : {60000ull, 240000ull, 960000ull})
      for (unsigned long long part : {65536ull, 32768ull, 16384ull})
        for (const char* mode : {"received", "sent"}) ok = ok && run(mode, mine, faces, bytes, part, 0, send);
    for (unsigned long long bytes : {60000ull, 240000ull, 960000ull})
      for (const char* mode : {"cycle-isend", "cycle-send", "cycle-isend-flush", "cycle-send-flush"})
        ok = ok && run(mode, mine, faces, bytes, 65536, 0, send);
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
