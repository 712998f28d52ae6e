// The host backend's halo engine: a few threads per stage, each taking every
// n-th team (a part of a message; one thread per team would oversubscribe a
// small machine twice over: two ranks, two stages). Stacked: a few threads,
// each a "block", all of them the grid.
#include <algorithm>
#include <atomic>
#include <barrier>
#include <memory>
#include <thread>
#include <vector>

#include "base/errors.hpp"
#include "probes/backends/host/host_engines.hpp"
#include "probes/signal/host_signal_ops.hpp"

namespace hetprobe::host_backend {

namespace {

struct HostHaloOps : HostSignalOps {
  unsigned long long compare_swap(unsigned long long* p, unsigned long long expected, unsigned long long desired) {
    std::atomic_ref<unsigned long long>(*p).compare_exchange_strong(expected, desired, std::memory_order_acq_rel);
    return expected;  // what was there
  }
  unsigned long long fetch_add(unsigned long long* p, unsigned long long x) {
    return std::atomic_ref<unsigned long long>(*p).fetch_add(x, std::memory_order_acq_rel);
  }
  unsigned long long fetch_min(unsigned long long* p, unsigned long long x) {
    std::atomic_ref<unsigned long long> a(*p);
    unsigned long long seen = a.load(std::memory_order_acquire);
    while (x < seen && !a.compare_exchange_weak(seen, x, std::memory_order_acq_rel)) {
    }
    return seen;
  }
  unsigned long long fetch_max(unsigned long long* p, unsigned long long x) {
    std::atomic_ref<unsigned long long> a(*p);
    unsigned long long seen = a.load(std::memory_order_acquire);
    while (x > seen && !a.compare_exchange_weak(seen, x, std::memory_order_acq_rel)) {
    }
    return seen;
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

class HostHaloEngine final : public HaloEngine {
 public:
  explicit HostHaloEngine(const Device& device) : info_(device.info()) {}
  ~HostHaloEngine() override {
    abandoned_.store(true, std::memory_order_release);  // threads still waiting end now
    for (auto& pool : threads_)
      for (auto& t : pool) t.join();
  }

  HaloShape start(const HaloLaunch& launch) override {
    const bool stacked = launch.stage == HaloStage::stacked;
    auto& pool = threads_[launch.stage == HaloStage::unpack ? 1 : 0];
    if (!pool.empty()) throw Error(ErrorKind::check, "HaloEngine::start: the previous stage was not joined");
    abandoned_.store(false, std::memory_order_release);
    HaloArgs args = launch.args, unpack = launch.unpack;
    args.timeout_ticks = unpack.timeout_ticks = static_cast<std::uint64_t>(launch.timeout_s * info_.timer_hz);
    args.poll_pause_ticks = unpack.poll_pause_ticks = static_cast<std::uint64_t>(launch.poll_pause_ns * info_.timer_hz *
                                                                                 1e-9);
    const auto cores = static_cast<std::uint64_t>(info_.multiprocessors);
    const std::uint64_t cap = stacked                           ? std::clamp<std::uint64_t>(cores, 2, 8)
                              : launch.stage == HaloStage::pack ? cores
                                                                : 2;
    if (stacked) {
      const std::uint64_t n = cap;
      if (launch.parts.is_whole()) {
        args.part_size = unpack.part_size = PartSize::whole();
      } else {
        args.part_size = unpack.part_size = halo_part_size(launch.parts, args.messages, args.count, kAutoPartBytes,
                                                           ~0ull);
        args.parts = states_for(0, args.count);
        unpack.parts = states_for(1, unpack.count);
      }
      barrier_ = std::make_unique<std::barrier<>>(static_cast<std::ptrdiff_t>(n));
      grid_slot_ = 0;
      for (std::uint64_t w = 0; w < n; ++w)
        pool.emplace_back([this, args, unpack, w, n] {
          HostHaloTeam block;
          HostHaloGridTeam grid{{}, w, n, barrier_.get()};
          block.abandoned = grid.abandoned = &abandoned_;
          unsigned long long slot = 0;
          halo_stacked(grid, block, w, n, args, args.messages, unpack, unpack.messages, &slot, &grid_slot_);
        });
      return {static_cast<int>(n), 1, args.part_size};
    }
    const bool pack = launch.stage == HaloStage::pack;
    args.part_size = halo_part_size(launch.parts, args.messages, args.count, kAutoPartBytes, ~0ull);
    args.parts = states_for(pack ? 0 : 1, args.count);
    const std::uint64_t n = halo_launch_teams(launch, args.messages, args.part_size, cap);
    for (std::uint64_t w = 0; w < n; ++w)
      pool.emplace_back([this, args, w, n, pack] {
        HostHaloTeam team;
        team.abandoned = &abandoned_;
        unsigned long long slot = 0;
        if (pack) halo_pack_teams(team, args, args.messages, w, n);
        else halo_unpack_teams(team, args, args.messages, &slot, w, n);
      });
    return {static_cast<int>(n), 1, args.part_size};
  }

  void join(HaloStage stage) override {
    auto& pool = threads_[stage == HaloStage::unpack ? 1 : 0];
    for (auto& t : pool) t.join();
    pool.clear();
  }

 private:
  // Parts of a host thread: one memcpy-sized piece, so messages of 64 KiB and
  // more are split as on a GPU and the parts' protocol runs in every test.
  static constexpr std::uint64_t kAutoPartBytes = 64 * 1024;

  // Stage i's (pack, unpack) part states, one a message.
  HaloPartState* states_for(int i, std::uint64_t count) {
    if (parts_[i].size() < count) parts_[i].resize(count);  // HaloPartState{}: the last part leaves it so
    return parts_[i].data();
  }

  const DeviceInfo& info_;
  std::vector<HaloPartState> parts_[2];      // pack, unpack: the host's "device memory"
  std::atomic<bool> abandoned_{false};       // set on close: the threads give their waits up
  std::vector<std::thread> threads_[2];      // pack (and stacked), unpack
  std::unique_ptr<std::barrier<>> barrier_;  // stacked
  unsigned long long grid_slot_ = 0;         // stacked
};

}  // namespace

std::unique_ptr<HaloEngine> make_halo_engine(const Device& device) { return std::make_unique<HostHaloEngine>(device); }

}  // namespace hetprobe::host_backend
