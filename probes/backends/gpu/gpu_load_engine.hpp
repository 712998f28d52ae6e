// The GPU backends' load engine. write, read and poll: one kernel of
// load_protocol.hpp, block 0's first warp the reporter and every other warp
// a worker (32 lanes moving 16 bytes each, 4 KiB a chunk). copy-d2h and
// copy-h2d: the copy engine, fed by a host thread with async copies between
// the pinned target and device memory, each followed by an event whose time,
// on the device timer, stamps the bytes copied so far (so the host places the
// copies on its timeline as it does a kernel's progress).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <thread>

#include "base/thread_affinity.hpp"
#include "probes/device/portability.hpp"
#include "probes/load/load_engine.hpp"

namespace hetprobe::HETPROBE_BACKEND_NS {

constexpr int kWarp = 32;
constexpr std::uint64_t kKernelChunkBytes = kWarp * 16 * 8;  // 8 units per lane

struct GpuReporterOps : GpuSignalOps {
  __device__ void relax() {}
  __device__ unsigned long long load_shared(unsigned long long* p) {
    return *static_cast<volatile unsigned long long*>(p);
  }
  __device__ void store_shared(unsigned long long* p, unsigned long long v) {
    *static_cast<volatile unsigned long long*>(p) = v;
  }
};

struct GpuLoadWorker : GpuReporterOps {
  std::uint64_t index, count;
  __device__ std::uint64_t worker() const { return index; }
  __device__ std::uint64_t workers() const { return count; }
  __device__ std::uint64_t lane() const { return threadIdx.x % kWarp; }
  __device__ std::uint64_t lanes() const { return kWarp; }
  __device__ unsigned long long broadcast(unsigned long long v) const { return gpu::lanes_broadcast(v); }
  __device__ void sync_lanes() { gpu::lanes_sync(); }
  __device__ void pause(std::uint64_t ticks) { gpu::pause(ticks); }
  __device__ void add(unsigned long long* p, unsigned long long x) { atomicAdd(p, x); }
  __device__ void store16(unsigned char* p, std::uint64_t lo, std::uint64_t hi) {
    struct alignas(16) Pair {
      unsigned long long lo, hi;
    };
    *reinterpret_cast<Pair*>(p) = Pair{lo, hi};
  }
  __device__ std::uint64_t load16(const unsigned char* p) { return gpu::load_fresh16_xor(p); }
  __device__ void copy16(unsigned char* to, const unsigned char* from) {
    for (int i = 0; i < 16; ++i) to[i] = from[i];
  }
  __device__ unsigned long long load_flag(const unsigned long long* p) { return gpu::load_relaxed_system(p); }
  __device__ void store_byte(unsigned char* p, unsigned char v) { *static_cast<volatile unsigned char*>(p) = v; }
  __device__ std::uint64_t load_byte(const unsigned char* p) { return *static_cast<const volatile unsigned char*>(p); }
};

__global__ void load_kernel(LoadArgs args) {
  const unsigned warp = threadIdx.x / kWarp;
  if (blockIdx.x == 0 && warp == 0) {
    if (threadIdx.x == 0) {
      GpuReporterOps ops;
      run_load_reporter(ops, args);
    }
    return;
  }
  const std::uint64_t per_block = blockDim.x / kWarp;
  GpuLoadWorker w{{}, blockIdx.x * per_block + warp - 1, args.workers};
  run_load_worker(w, args);
}

// A copy's progress stamp; the first of a task also says the load is running.
__global__ void load_stamp_kernel(LoadControl* c, LoadStamp* ring, std::uint64_t mask, std::uint64_t index,
                                  std::uint64_t bytes, std::uint64_t ready_epoch) {
  ring[index & mask] = LoadStamp{gpu::device_timer(), bytes};
  __threadfence_system();
  gpu::store_release_system(&c->stamps.value, index + 1);
  if (ready_epoch) gpu::store_release_system(&c->ready.value, ready_epoch);
}

class GpuLoadEngine final : public LoadEngine {
 public:
  GpuLoadEngine(Device& device, int ordinal)
      : LoadEngine(device, device.alloc_pinned(control_and_ring_bytes())), ordinal_(ordinal) {
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    HP_CHECK(HP_RT(StreamCreateWithFlags)(&stream_, HP_RT(StreamNonBlocking)));
    HP_CHECK(HP_RT(Malloc)(reinterpret_cast<void**>(&shared_), sizeof(LoadShared)));
    gpu::FuncAttributes attr{};
    HP_CHECK(HP_RT(FuncGetAttributes)(&attr, reinterpret_cast<const void*>(load_kernel)));
    threads_ = std::min(attr.maxThreadsPerBlock, device.info().max_threads_per_block) / kWarp * kWarp;
    int per_sm = 0;
    HP_CHECK(HP_RT(OccupancyMaxActiveBlocksPerMultiprocessor)(&per_sm, reinterpret_cast<const void*>(load_kernel),
                                                              threads_, 0));
    stacked_blocks_ = std::max(1, per_sm) * device.info().multiprocessors;
    HP_CHECK(HP_RT(FuncGetAttributes)(&attr, reinterpret_cast<const void*>(load_stamp_kernel)));  // loads it now
  }

  ~GpuLoadEngine() override {
    if (running_) {
      request_stop();
      try {
        wait();
      } catch (...) {
      }
    }
    (void)HP_RT(Free)(shared_);
    (void)HP_RT(Free)(far_);
    if (events_[0]) {
      for (auto& e : events_) (void)HP_RT(EventDestroy)(e);
      (void)HP_RT(EventDestroy)(anchor_);
    }
    (void)HP_RT(StreamDestroy)(stream_);
  }

  LoadShape shape(LoadKind kind, Access access, std::uint64_t target_bytes) const override {
    if (!load_uses_threads(kind)) return {LoadEngineKind::copy_engine, 0, 0, 1, copy_chunk(0, target_bytes)};
    const int blocks = access == Access::stream ? 1 : stacked_blocks_;
    // A poll chunk is one poll per lane: a grid's polls of one word can each take milliseconds.
    const std::uint64_t chunk = kind == LoadKind::poll ? 8 * kWarp : kKernelChunkBytes;
    return {LoadEngineKind::kernel, blocks, threads_, static_cast<long long>(blocks) * (threads_ / kWarp) - 1, chunk};
  }

  void start(const LoadTask& task) override {
    if (running_) throw Error(ErrorKind::check, "a load is already running on this engine");
    begin(task);
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    if (load_uses_threads(task.kind)) {
      const LoadShape s = shape(task.kind, task.access, task.target_bytes);
      const LoadArgs args = protocol_args(task, s, shared_, nullptr);
      HP_CHECK(HP_RT(MemsetAsync)(shared_, 0, sizeof(LoadShared), stream_));
      load_kernel<<<s.blocks, s.threads_per_block, 0, stream_>>>(args);
      HP_CHECK(HP_RT(GetLastError)());
    } else {
      if (far_bytes_ < task.target_bytes) {
        (void)HP_RT(Free)(far_);
        far_ = nullptr;
        HP_CHECK(HP_RT(Malloc)(reinterpret_cast<void**>(&far_), task.target_bytes));
        HP_CHECK(HP_RT(Memset)(far_, 0x80, task.target_bytes));  // bit 7 set: never a payload byte
        far_bytes_ = task.target_bytes;
      }
      feeder_error_ = nullptr;
      feeder_failed_ = false;
      feeder_ = std::thread([this, task] {
        bind_current_thread(task.helper_cpus);
        try {
          feed(task);
        } catch (...) {
          feeder_error_ = std::current_exception();
          feeder_failed_ = true;
        }
      });
    }
    running_ = true;
  }

  LoadOutcome join() override {
    wait();
    return finish();
  }

  double time_plain(LoadKind kind, std::byte* target, std::uint64_t bytes) override {
    if (kind == LoadKind::poll || kind == LoadKind::none)
      throw usage_error(std::string("a ") + to_string(kind) + " load has no plain pass to compare with");
    if (running_) throw Error(ErrorKind::check, "time_plain while a load runs on this engine");
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    constexpr int kThreads = 256;
    auto blocks = [](std::uint64_t items) {
      return static_cast<unsigned>(std::min<std::uint64_t>((items + kThreads - 1) / kThreads, 0x7FFFFFFFull));
    };
    void* scratch = nullptr;  // the copies' device memory, or the read's sink
    HP_CHECK(HP_RT(Malloc)(&scratch, kind == LoadKind::read ? 8 : bytes));
    gpu::Event start, stop;
    HP_CHECK(HP_RT(EventCreate)(&start));
    HP_CHECK(HP_RT(EventCreate)(&stop));
    HP_CHECK(HP_RT(EventRecord)(start, stream_));
    auto* t = reinterpret_cast<unsigned char*>(target);
    if (kind == LoadKind::write) plain_write_kernel<<<blocks((bytes + 7) / 8), kThreads, 0, stream_>>>(t, bytes);
    else if (kind == LoadKind::read)
      plain_read_kernel<<<blocks(bytes / 16), kThreads, 0, stream_>>>(t, bytes,
                                                                      static_cast<unsigned long long*>(scratch));
    else if (kind == LoadKind::copy_d2h)
      HP_CHECK(HP_RT(MemcpyAsync)(t, scratch, bytes, HP_RT(MemcpyDeviceToHost), stream_));
    else HP_CHECK(HP_RT(MemcpyAsync)(scratch, t, bytes, HP_RT(MemcpyHostToDevice), stream_));
    HP_CHECK(HP_RT(GetLastError)());
    HP_CHECK(HP_RT(EventRecord)(stop, stream_));
    HP_CHECK(HP_RT(EventSynchronize)(stop));
    float ms = 0;
    HP_CHECK(HP_RT(EventElapsedTime)(&ms, start, stop));
    (void)HP_RT(EventDestroy)(start);
    (void)HP_RT(EventDestroy)(stop);
    (void)HP_RT(Free)(scratch);
    return ms * 1e-3;
  }

 protected:
  void check_alive() override {
    if (feeder_failed_) std::rethrow_exception(feeder_error_);
    const gpu::Error e = HP_RT(StreamQuery)(stream_);
    if (e != gpu::kSuccess && e != HP_RT(ErrorNotReady)) HP_CHECK(e);
  }

 private:
  // Copy sizes: the largest (8 MiB, about 160 us at 50 GB/s, so the feeder
  // wakes rarely) at full rate; at a set rate about 160 us of it, at least
  // 256 KiB; never more than the target.
  static std::uint64_t copy_chunk(double rate_gbs, std::uint64_t target_bytes) {
    std::uint64_t chunk = 8ull << 20;
    if (rate_gbs > 0)
      chunk = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(rate_gbs * 160e3), 256ull << 10, chunk);
    return std::max<std::uint64_t>(1, std::min(chunk, target_bytes));
  }

  void wait() {
    running_ = false;
    if (feeder_.joinable()) feeder_.join();
    HP_CHECK(HP_RT(StreamSynchronize)(stream_));
    if (feeder_error_) std::rethrow_exception(std::exchange(feeder_error_, nullptr));
  }

  // The copy loop: keeps up to kDepth copies queued (at a set rate, no more
  // than one copy ahead of it), each followed by an event; stops on the host's
  // stop flag or when the host stops keeping it alive, lets the queue drain
  // and writes the result itself. A one-thread kernel before the first copy
  // stamps the device timer and the ready flag; each copy's end is that stamp
  // plus the events' elapsed time, written into the ring as its events complete
  // (nothing runs between two copies, so the engine never waits).
  void feed(const LoadTask& task) {
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    constexpr std::uint64_t kDepth = 4;
    if (!events_[0]) {
      for (auto& e : events_) HP_CHECK(HP_RT(EventCreate)(&e));
      HP_CHECK(HP_RT(EventCreate)(&anchor_));
    }
    const std::uint64_t chunk = copy_chunk(task.rate_gbs, task.target_bytes);
    const bool to_host = task.kind == LoadKind::copy_d2h;
    LoadControl* c = control_host();
    LoadStamp* ring = ring_host_mutable();
    load_stamp_kernel<<<1, 1, 0, stream_>>>(control_device(), ring_device(), ring_mask(), 0, 0, task.epoch);
    HP_CHECK(HP_RT(GetLastError)());
    HP_CHECK(HP_RT(EventRecord)(anchor_, stream_));
    const double ticks_per_ms = device_.info().timer_hz * 1e-3;
    std::uint64_t enqueued = 0, completed = 0, offset = 0, bytes = 0;
    std::uint64_t pending_bytes[kEvents] = {};
    // Completed copies become stamps: the anchor stamp's ticks plus the elapsed time.
    auto reap = [&](bool all) {
      while (completed < enqueued) {
        gpu::Event e = events_[completed % kEvents];
        const gpu::Error q = all ? HP_RT(EventSynchronize)(e) : HP_RT(EventQuery)(e);
        if (q == HP_RT(ErrorNotReady)) return;
        HP_CHECK(q);
        float ms = 0;
        HP_CHECK(HP_RT(EventElapsedTime)(&ms, anchor_, e));
        const std::uint64_t index = ++completed;
        ring[index & ring_mask()] = LoadStamp{ring[0].ticks + static_cast<std::uint64_t>(ms * ticks_per_ms),
                                              pending_bytes[(index - 1) % kEvents]};
        std::atomic_ref<unsigned long long>(c->stamps.value).store(index + 1, std::memory_order_release);
      }
    };
    const auto t0 = std::chrono::steady_clock::now();
    const double rate = task.rate_gbs * 1e9;  // B/s
    bool timed_out = false;
    unsigned long long alive = std::atomic_ref<unsigned long long>(c->alive.value).load(std::memory_order_acquire);
    auto t_alive = t0;
    for (;;) {
      if (std::atomic_ref<unsigned long long>(c->stop.value).load(std::memory_order_acquire) >= task.epoch) break;
      const auto now = std::chrono::steady_clock::now();
      const double elapsed = std::chrono::duration<double>(now - t0).count();
      if (const auto seen = std::atomic_ref<unsigned long long>(c->alive.value).load(std::memory_order_acquire);
          seen != alive)
        alive = seen, t_alive = now;
      if (std::chrono::duration<double>(now - t_alive).count() > task.timeout_s) {
        timed_out = true;
        break;
      }
      if (enqueued > 0 && completed == 0) HP_CHECK(HP_RT(EventSynchronize)(anchor_));  // ring[0] is written
      reap(false);
      while (enqueued - completed < kDepth && (rate == 0 || static_cast<double>(bytes) <= elapsed * rate)) {
        const std::uint64_t n = std::min(chunk, task.target_bytes - offset);
        std::byte* host = task.target + offset;
        std::byte* dev = far_ + offset;
        HP_CHECK(HP_RT(MemcpyAsync)(to_host ? host : dev, to_host ? dev : host, n,
                                    to_host ? HP_RT(MemcpyDeviceToHost) : HP_RT(MemcpyHostToDevice), stream_));
        bytes += n;
        pending_bytes[enqueued % kEvents] = bytes;
        HP_CHECK(HP_RT(EventRecord)(events_[enqueued % kEvents], stream_));
        ++enqueued;
        offset = offset + n == task.target_bytes ? 0 : offset + n;
      }
      const double chunk_s = rate > 0 ? static_cast<double>(chunk) / rate : static_cast<double>(chunk) / 50e9;
      std::this_thread::sleep_for(std::chrono::duration<double>(std::max(20e-6, chunk_s / 4)));
    }
    HP_CHECK(HP_RT(StreamSynchronize)(stream_));
    reap(true);
    // The engine has been idle since its last copy: a last stamp at the stop
    // says so, so a send after that copy reads no bytes, not an unknown.
    load_stamp_kernel<<<1, 1, 0, stream_>>>(control_device(), ring_device(), ring_mask(), completed + 1, bytes, 0);
    HP_CHECK(HP_RT(GetLastError)());
    HP_CHECK(HP_RT(StreamSynchronize)(stream_));
    const std::uint64_t stamps = std::atomic_ref<unsigned long long>(c->stamps.value).load(std::memory_order_acquire);
    if (timed_out)
      std::fprintf(stderr,
                   "hetprobe: the %s load on device %d gave up: no sign from the host for %.1f s (%llu copies "
                   "queued, %llu done)\n",
                   to_string(task.kind), ordinal_, task.timeout_s, static_cast<unsigned long long>(enqueued),
                   static_cast<unsigned long long>(completed));
    c->result.status = timed_out ? writer_status_timeout : writer_status_ok;
    c->result.bytes = bytes;
    c->result.t_start = c->result.t_ready = ring[0].ticks;
    c->result.t_end = ring[(stamps - 1) & ring_mask()].ticks;
    c->result.workers_started = 1;
    c->result.control_reads = 0;  // the feeder reads the flags in host memory, from the host
    std::atomic_ref<unsigned long long>(c->done.value).store(task.epoch, std::memory_order_release);
  }

  int ordinal_;
  gpu::Stream stream_{};
  LoadShared* shared_ = nullptr;
  int threads_ = 0, stacked_blocks_ = 0;
  std::byte* far_ = nullptr;  // the copy kinds' device memory
  std::uint64_t far_bytes_ = 0;
  static constexpr std::uint64_t kEvents = 16;  // more than the copies ever queued
  gpu::Event events_[kEvents]{}, anchor_{};
  std::thread feeder_;
  std::exception_ptr feeder_error_;  // written by the feeder before feeder_failed_
  std::atomic<bool> feeder_failed_{false};
  bool running_ = false;
};

}  // namespace hetprobe::HETPROBE_BACKEND_NS
