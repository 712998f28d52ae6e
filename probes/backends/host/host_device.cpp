// Host backend: CPU threads play the device, running the same run_writer()
// as the GPU kernels. stream access = 1 writer thread; stacked access = one
// thread per hardware thread but the caller's, meeting at a barrier per pass.
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "bench/core/errors.hpp"
#include "probes/device/device.hpp"
#include "probes/load/load_engine.hpp"
#include "probes/signal/host_signal_ops.hpp"

namespace hetprobe::host_backend {

std::unique_ptr<LoadEngine> make_load_engine(Device& device);  // host_load_engine.cpp

namespace {

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

struct TeamShared {
  explicit TeamShared(std::ptrdiff_t n) : barrier(n) {}
  std::barrier<> barrier;
  unsigned long long broadcast[2] = {0, 0};
};

// The Team run_writer() expects, on CPU threads: the host's flag accesses
// and timer, plus a team of threads meeting at a barrier.
struct HostTeam : HostSignalOps {
  std::uint64_t my_rank, team_size;
  TeamShared* shared;
  std::uint64_t rank() const { return my_rank; }
  std::uint64_t size() const { return team_size; }
  void sync() { shared->barrier.arrive_and_wait(); }
  unsigned long long read_shared(unsigned long long* p) { return load_acquire(p); }
  void write_shared(unsigned long long* p, unsigned long long v) { store_release(p, v); }
};

struct HostHaloOps : HostSignalOps {
  unsigned long long compare_swap(unsigned long long* p, unsigned long long expected, unsigned long long desired) {
    std::atomic_ref<unsigned long long>(*p).compare_exchange_strong(expected, desired, std::memory_order_acq_rel);
    return expected;  // what was there
  }
  // No pause between flag reads: pause_in_wait (HostSignalOps) gives the CPU away once a wait is long.
  void relax(unsigned long long) {}
};

// A halo team of one host thread.
struct HostHaloTeam : HostHaloOps {
  std::uint64_t rank() const { return 0; }
  std::uint64_t size() const { return 1; }
  void sync() {}
  unsigned long long read_shared(unsigned long long* p) { return *p; }
  void write_shared(unsigned long long* p, unsigned long long v) { *p = v; }
  void add_shared(unsigned long long* p, unsigned long long x) { *p += x; }
};

// notify-stacked's grid on host threads: a team meeting at a barrier.
struct HostHaloGridTeam : HostHaloOps {
  std::uint64_t my_rank, team_size;
  std::barrier<>* barrier;
  std::uint64_t rank() const { return my_rank; }
  std::uint64_t size() const { return team_size; }
  void sync() { barrier->arrive_and_wait(); }
  unsigned long long read_shared(unsigned long long* p) { return load_acquire(p); }
  void write_shared(unsigned long long* p, unsigned long long v) { store_release(p, v); }
  void add_shared(unsigned long long* p, unsigned long long x) {
    std::atomic_ref<unsigned long long>(*p).fetch_add(x, std::memory_order_acq_rel);
  }
};

constexpr std::size_t kAlign = 4096;

std::byte* alloc_locked(std::size_t bytes, bool& locked) {
  const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, rounded);
  if (p == nullptr) return nullptr;
  std::memset(p, 0, rounded);  // touch every page so it is really there
  locked = mlock(p, rounded) == 0;
  return static_cast<std::byte*>(p);
}

// HETPROBE_HOST_DEVICES=N (a test option, default 1): the host backend
// presents N devices, so multi-GPU paths run without a GPU.
int host_device_count(std::string& why_none) {
  const char* text = std::getenv("HETPROBE_HOST_DEVICES");
  if (text == nullptr || *text == '\0') return 1;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (*end != '\0' || n < 1 || n > 64) {
    why_none = std::string("HETPROBE_HOST_DEVICES=") + text + " is not a count from 1 to 64";
    return 0;
  }
  return static_cast<int>(n);
}

class HostDevice final : public Device {
 public:
  explicit HostDevice(int ordinal) {
    info_.backend = "host";
    info_.ordinal = ordinal;
    info_.name = cpu_model();
    utsname u{};
    if (uname(&u) == 0) info_.driver_version = std::string(u.sysname) + " " + u.release;
    info_.runtime_version = "libstdc++ " + std::to_string(__GLIBCXX__);
    info_.multiprocessors = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    info_.max_threads_per_block = 1;
    info_.warp_size = 1;
    info_.timer_hz = 1e9;  // steady_clock counts nanoseconds
    bool locked = false;
    control_block_ = alloc_locked(sizeof(WriterControl), locked);
    if (control_block_ == nullptr) throw std::bad_alloc();
    control_ = new (control_block_) WriterControl{};
    signal_block_ = alloc_locked(sizeof(SignalResult), locked);
    if (signal_block_ == nullptr) throw std::bad_alloc();
    signal_result_ = signal_result_dev_ = new (signal_block_) SignalResult{};
    info_.timer_tick_ns = measure_timer_tick_ns();
  }
  ~HostDevice() override {
    abandoned_.store(true, std::memory_order_release);  // device threads still waiting end now
    for (auto& pool : halo_threads_)
      for (auto& t : pool) t.join();
    if (!threads_.empty()) {
      request_stop(~0ull);
      for (auto& t : threads_) t.join();
    }
    if (signal_thread_.joinable()) signal_thread_.join();
    std::free(control_block_);
    std::free(signal_block_);
  }

  const DeviceInfo& info() const override { return info_; }

  WriterShape writer_shape(Access access) const override {
    if (access == Access::stream) return {1, 1};
    return {std::max(1, info_.multiprocessors - 1), 1};
  }

  PinnedBuffer alloc_pinned(std::size_t bytes) override {
    check_pinnable(bytes);
    bool locked = false;
    std::byte* p = alloc_locked(bytes, locked);
    if (p == nullptr) throw usage_error("cannot allocate " + std::to_string(bytes) + " bytes of host memory");
    if (!locked) info_.page_locked = false;
    const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
    return PinnedBuffer(p, p, bytes, [rounded, locked](std::byte* q) {
      if (locked) munlock(q, rounded);
      std::free(q);
    });
  }

  PinnedBuffer alloc_device(std::size_t bytes) override { return alloc_pinned(bytes); }

  std::unique_ptr<LoadEngine> make_load_engine() override { return host_backend::make_load_engine(*this); }

  // A few threads per stage, each taking every n-th message: one per message
  // would oversubscribe a small machine twice over (two ranks, two stages).
  // Stacked: a few threads, each a "block", all of them the grid.
  WriterShape start_halo(const HaloLaunch& launch) override {
    const bool stacked = launch.stage == HaloStage::stacked;
    auto& pool = halo_threads_[launch.stage == HaloStage::unpack ? 1 : 0];
    if (!pool.empty()) throw Error(ErrorKind::check, "start_halo: the previous stage was not joined");
    abandoned_.store(false, std::memory_order_release);
    HaloArgs args = launch.args, unpack = launch.unpack;
    args.timeout_ticks = unpack.timeout_ticks = static_cast<std::uint64_t>(launch.timeout_s * info_.timer_hz);
    args.poll_pause_ticks = unpack.poll_pause_ticks = static_cast<std::uint64_t>(launch.poll_pause_ns * info_.timer_hz *
                                                                                 1e-9);
    const auto cores = static_cast<std::uint64_t>(info_.multiprocessors);
    const std::uint64_t cap = stacked                           ? std::clamp<std::uint64_t>(cores, 2, 8)
                              : launch.stage == HaloStage::pack ? cores
                                                                : 2;
    const std::uint64_t n = stacked ? cap : std::max<std::uint64_t>(1, std::min(args.count, cap));
    if (stacked) {
      halo_barrier_ = std::make_unique<std::barrier<>>(static_cast<std::ptrdiff_t>(n));
      halo_grid_slot_ = 0;
      for (std::uint64_t w = 0; w < n; ++w)
        pool.emplace_back([this, args, unpack, w, n] {
          HostHaloTeam block;
          HostHaloGridTeam grid{{}, w, n, halo_barrier_.get()};
          block.abandoned = grid.abandoned = &abandoned_;
          unsigned long long slot = 0;
          halo_stacked(grid, block, w, n, args, args.messages, unpack, unpack.messages, &slot, &halo_grid_slot_);
        });
      return {static_cast<int>(n), 1};
    }
    const bool pack = launch.stage == HaloStage::pack;
    for (std::uint64_t w = 0; w < n; ++w)
      pool.emplace_back([this, args, w, n, pack] {
        HostHaloTeam team;
        team.abandoned = &abandoned_;
        unsigned long long slot = 0;
        for (std::uint64_t m = w; m < args.count; m += n) {
          if (pack) halo_pack(team, args, m, args.messages[m]);
          else halo_unpack(team, args, m, args.messages[m], &slot);
        }
      });
    return {static_cast<int>(n), 1};
  }

  void join_halo(HaloStage stage) override {
    auto& pool = halo_threads_[stage == HaloStage::unpack ? 1 : 0];
    for (auto& t : pool) t.join();
    pool.clear();
  }

  // No copy engine here: the copy happens in the call.
  void start_copy_to_host(int, std::byte* host_dst, const std::byte* device_src, std::size_t bytes) override {
    std::memcpy(host_dst, device_src, bytes);
  }
  bool copy_done(int) override { return true; }

  double time_plain(LoadKind kind, std::byte* target, std::uint64_t bytes) override {
    if (kind == LoadKind::poll || kind == LoadKind::none)
      throw usage_error(std::string("a ") + to_string(kind) + " load has no plain pass to compare with");
    const int n = writer_shape(Access::stacked).blocks;
    std::vector<std::byte> far(kind == LoadKind::copy_d2h || kind == LoadKind::copy_h2d ? bytes : 0);
    std::atomic<std::uint64_t> sink{0};
    const std::uint64_t t0 = now_ns();
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
    return static_cast<double>(now_ns() - t0) * 1e-9;
  }

 protected:
  void launch_signal(const SignalArgs& args) override {
    abandoned_.store(false, std::memory_order_release);
    signal_thread_ = std::thread([this, args] {
      HostSignalOps ops{&abandoned_};
      run_signal(ops, args);
    });
  }

  void wait_signal_exit() override {
    if (signal_thread_.joinable()) signal_thread_.join();
  }

  void launch_writer(const WriterTask& task) override {
    const int n = writer_shape(task.access).blocks;
    shared_ = std::make_unique<TeamShared>(n);
    args_ = WriterArgs{reinterpret_cast<unsigned char*>(task.pre),
                       task.pre_bytes,
                       reinterpret_cast<unsigned char*>(task.post),
                       task.post_bytes,
                       control_,
                       shared_->broadcast,
                       task.epoch,
                       static_cast<std::uint64_t>(task.timeout_s * info_.timer_hz)};
    for (int r = 0; r < n; ++r)
      threads_.emplace_back([this, r, n] {
        HostTeam team{{}, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(n), shared_.get()};
        run_writer(team, args_);
      });
  }

  void wait_writer_exit() override {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  DeviceInfo info_;
  std::byte* control_block_ = nullptr;
  std::byte* signal_block_ = nullptr;
  std::thread signal_thread_;
  std::atomic<bool> abandoned_{false};  // set on close: the device threads give their waits up
  std::unique_ptr<TeamShared> shared_;
  WriterArgs args_{};
  std::vector<std::thread> threads_;
  std::vector<std::thread> halo_threads_[2];  // pack (and stacked), unpack
  std::unique_ptr<std::barrier<>> halo_barrier_;
  unsigned long long halo_grid_slot_ = 0;
};

}  // namespace

BackendEntry entry() {
  return {"host", host_device_count,
          [](int ordinal) -> std::unique_ptr<Device> { return std::make_unique<HostDevice>(ordinal); },
          [](int) { return std::string(); }};
}

}  // namespace hetprobe::host_backend
