// The host backend's writer: stream access = 1 writer thread; stacked access =
// one thread per hardware thread but the caller's, meeting at a barrier per pass.
#include <barrier>
#include <memory>
#include <thread>
#include <vector>

#include "probes/backends/host/host_engines.hpp"
#include "probes/signal/host_signal_ops.hpp"

namespace hetprobe::host_backend {

namespace {

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

// A thread of a slowed device's writer: run_writer() meets at sync() after
// the payload and after each pass, so waiting there first (factor - 1) x the
// time worked since the last meeting makes every pass factor times as long.
struct SlowedHostTeam : HostTeam {
  WorkStretch work;
  void sync() {
    work.stretch();
    HostTeam::sync();
    work.mark();  // the wait for the team is not work
  }
};

class HostWriterEngine final : public WriterEngine {
 public:
  HostWriterEngine(const Device& device, PinnedBuffer control)
      : WriterEngine(device, new(control.host()) WriterControl{}), control_(std::move(control)) {}
  ~HostWriterEngine() override {
    if (!threads_.empty()) {
      request_stop(~0ull);
      for (auto& t : threads_) t.join();
    }
  }

  WriterShape shape(Access access) const override {
    return access == Access::stream ? WriterShape{1, 1} : WriterShape{stacked_threads(device_.info()), 1};
  }

 protected:
  void launch(const WriterTask& task) override {
    const int n = shape(task.access).blocks;
    shared_ = std::make_unique<TeamShared>(n);
    args_ = WriterArgs{reinterpret_cast<unsigned char*>(task.pre),
                       task.pre_bytes,
                       reinterpret_cast<unsigned char*>(task.post),
                       task.post_bytes,
                       reinterpret_cast<WriterControl*>(control_.host()),
                       shared_->broadcast,
                       task.epoch,
                       static_cast<std::uint64_t>(task.timeout_s * device_.info().timer_hz)};
    const double slowdown = device_.info().simulated_slowdown;
    for (int r = 0; r < n; ++r)
      threads_.emplace_back([this, r, n, slowdown] {
        HostTeam team{{}, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(n), shared_.get()};
        if (slowdown != 1) {
          SlowedHostTeam slowed{team, WorkStretch(slowdown)};
          run_writer(slowed, args_);
        } else {
          run_writer(team, args_);
        }
      });
  }

  void wait_exit() override {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  PinnedBuffer control_;
  std::unique_ptr<TeamShared> shared_;
  WriterArgs args_{};
  std::vector<std::thread> threads_;
};

}  // namespace

std::unique_ptr<WriterEngine> make_writer_engine(Device& device) {
  return std::make_unique<HostWriterEngine>(device, device.alloc_pinned(sizeof(WriterControl)));
}

}  // namespace hetprobe::host_backend
