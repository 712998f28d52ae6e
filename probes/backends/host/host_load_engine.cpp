// The host backend's load engine: CPU threads run the same run_load_worker()
// and run_load_reporter() as the GPU kernels. Thread kinds: one worker thread
// (stream) or one per hardware thread but the caller's (stacked); the copy
// kinds: one worker copying between the pinned target and the engine's own
// memory (the "device memory" of this backend), as one copy engine would.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "base/errors.hpp"
#include "base/thread_affinity.hpp"
#include "probes/backends/host/host_engines.hpp"
#include "probes/signal/host_signal_ops.hpp"
#include "probes/writer/writer_protocol.hpp"

namespace hetprobe::host_backend {

namespace {

constexpr std::uint64_t kChunkBytes = 64 * 1024;

std::atomic_ref<unsigned long long> ref(unsigned long long* p) { return std::atomic_ref<unsigned long long>(*p); }

// What run_load_reporter() expects, on a host thread.
// Waits here sleep rather than yield: a yield to a rank that busy-polls MPI
// on the same core gives it a whole time slice, a sleep wakes in tens of us.
struct HostReporterOps : HostSignalOps {
  void relax() { std::this_thread::sleep_for(std::chrono::microseconds(10)); }
  unsigned long long load_shared(unsigned long long* p) { return ref(p).load(std::memory_order_acquire); }
  void store_shared(unsigned long long* p, unsigned long long v) { ref(p).store(v, std::memory_order_release); }
};

// What run_load_worker() expects: a worker of one lane.
struct HostLoadWorker : HostReporterOps {
  std::uint64_t index, count;
  std::uint64_t worker() const { return index; }
  std::uint64_t workers() const { return count; }
  std::uint64_t lane() const { return 0; }
  std::uint64_t lanes() const { return 1; }
  unsigned long long broadcast(unsigned long long v) const { return v; }
  void sync_lanes() {}
  void pause(std::uint64_t ns) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
    if (ns > 50'000) std::this_thread::sleep_until(until);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
  void add(unsigned long long* p, unsigned long long x) { ref(p).fetch_add(x, std::memory_order_acq_rel); }
  void store16(unsigned char* p, std::uint64_t lo, std::uint64_t hi) {
    auto* w = reinterpret_cast<volatile std::uint64_t*>(p);
    w[0] = lo;
    w[1] = hi;
  }
  std::uint64_t load16(const unsigned char* p) {
    const auto* w = reinterpret_cast<const volatile std::uint64_t*>(p);
    return w[0] ^ w[1];
  }
  void copy16(unsigned char* to, const unsigned char* from) { std::memcpy(to, from, 16); }
  unsigned long long load_flag(const unsigned long long* p) { return load_relaxed(p); }
  void store_byte(unsigned char* p, unsigned char v) { *static_cast<volatile unsigned char*>(p) = v; }
  std::uint64_t load_byte(const unsigned char* p) { return *static_cast<const volatile unsigned char*>(p); }
};

// A worker of a slowed device: run_load_worker() calls sync_lanes() before
// and after each chunk, so waiting there (factor - 1) x the time worked since
// the last one moves the data factor times slower; its pacing pauses and its
// wait for the go are idle time, not stretched.
struct SlowedLoadWorker : HostLoadWorker {
  WorkStretch work;
  void sync_lanes() { work.stretch(); }
  void pause(std::uint64_t ns) {
    HostLoadWorker::pause(ns);
    work.mark();
  }
  void relax() {
    HostLoadWorker::relax();
    work.mark();
  }
};

class HostLoadEngine final : public LoadEngine {
 public:
  HostLoadEngine(Device& device) : LoadEngine(device, device.alloc_pinned(control_and_ring_bytes())) {}
  ~HostLoadEngine() override {
    if (!threads_.empty()) {
      request_stop();
      for (auto& t : threads_) t.join();
    }
  }

  LoadShape shape(LoadKind kind, Access access, std::uint64_t) const override {
    const int cores = device_.info().multiprocessors;
    const int n = kind == LoadKind::copy_d2h || kind == LoadKind::copy_h2d || access == Access::stream
                      ? 1
                      : std::max(1, cores - 1);
    return {LoadEngineKind::host_threads, n, 1, n, kChunkBytes};
  }

  void start(const LoadTask& task) override {
    if (!threads_.empty()) throw Error(ErrorKind::check, "a load is already running on this engine");
    begin(task);
    const LoadShape s = shape(task.kind, task.access, task.target_bytes);
    std::byte* source = nullptr;
    if (task.kind == LoadKind::copy_d2h || task.kind == LoadKind::copy_h2d) {
      if (own_.size() < task.target_bytes + 16) own_.assign(task.target_bytes + 16, std::byte{0x80});
      source = own_.data();
    }
    shared_ = LoadShared{};
    const LoadArgs args = protocol_args(task, s, &shared_, source);
    const std::vector<int> cpus = task.helper_cpus;
    threads_.emplace_back([args, cpus] {
      bind_current_thread(cpus);
      HostReporterOps ops;
      run_load_reporter(ops, args);
    });
    const double slowdown = device_.info().simulated_slowdown;
    for (long long w = 0; w < s.workers; ++w)
      threads_.emplace_back([args, w, n = s.workers, cpus, slowdown] {
        bind_current_thread(cpus);
        HostLoadWorker worker{{}, static_cast<std::uint64_t>(w), static_cast<std::uint64_t>(n)};
        if (slowdown != 1) {
          SlowedLoadWorker slowed{worker, WorkStretch(slowdown)};
          run_load_worker(slowed, args);
        } else {
          run_load_worker(worker, args);
        }
      });
  }

  LoadOutcome join() override {
    for (auto& t : threads_) t.join();
    threads_.clear();
    return finish();
  }

  double time_plain(LoadKind kind, std::byte* target, std::uint64_t bytes) override {
    if (kind == LoadKind::poll || kind == LoadKind::none)
      throw usage_error(std::string("a ") + to_string(kind) + " load has no plain pass to compare with");
    const int n = stacked_threads(device_.info());
    std::vector<std::byte> far(kind == LoadKind::copy_d2h || kind == LoadKind::copy_h2d ? bytes : 0);
    std::atomic<std::uint64_t> sink{0};
    HostSignalOps clock;
    const double slowdown = device_.info().simulated_slowdown;
    // A slowed device: the whole pass takes `slowdown` times as long. (Each
    // thread stretching its own share would not: the others take the memory
    // bandwidth it leaves while it waits.)
    WorkStretch whole(slowdown);
    const std::uint64_t t0 = clock.timer();
    std::vector<std::thread> team;
    for (int r = 0; r < n; ++r)
      team.emplace_back([&, r] {
        const std::uint64_t lo = bytes * r / n, hi = bytes * (r + 1) / n;
        auto* t = reinterpret_cast<unsigned char*>(target);
        if (kind == LoadKind::write) {
          write_region(t, bytes, PostValue{0}, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(n));
        } else if (kind == LoadKind::read) {
          std::uint64_t acc = 0;
          for (std::uint64_t j = lo / 8; j < hi / 8; ++j) acc ^= reinterpret_cast<const volatile std::uint64_t*>(t)[j];
          sink ^= acc;
        } else if (kind == LoadKind::copy_d2h) {
          std::memcpy(t + lo, far.data() + lo, hi - lo);
        } else {
          std::memcpy(far.data() + lo, t + lo, hi - lo);
        }
      });
    for (auto& t : team) t.join();
    if (slowdown != 1) whole.stretch();
    return static_cast<double>(clock.timer() - t0) * 1e-9;
  }

 private:
  LoadShared shared_{};
  std::vector<std::byte> own_;  // the copy kinds' far end
  std::vector<std::thread> threads_;
};

}  // namespace

std::unique_ptr<LoadEngine> make_load_engine(Device& device) { return std::make_unique<HostLoadEngine>(device); }

}  // namespace hetprobe::host_backend
