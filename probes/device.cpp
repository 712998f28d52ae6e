#include "hetprobe/device.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

#include "hetprobe/errors.hpp"

namespace hetprobe {

namespace {
// The flag block of the running writer, for the signal handler.
std::atomic<WriterControl*> g_running_control{nullptr};

using Clock = std::chrono::steady_clock;

unsigned long long load_acquire(const FlagLine& line) {
  return std::atomic_ref<const unsigned long long>(line.value).load(std::memory_order_acquire);
}
}  // namespace

const char* to_string(Access access) {
  return access == Access::stream ? "stream" : "stacked";
}

PinnedBuffer::PinnedBuffer(std::byte* host, std::byte* device, std::size_t bytes,
                           std::function<void(std::byte*)> release)
    : host_(host), device_(device), bytes_(bytes), release_(std::move(release)) {}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept { *this = std::move(other); }

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    if (host_ && release_) release_(host_);
    host_ = std::exchange(other.host_, nullptr);
    device_ = std::exchange(other.device_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    release_ = std::move(other.release_);
  }
  return *this;
}

PinnedBuffer::~PinnedBuffer() {
  if (host_ && release_) release_(host_);
}

void Device::start_writer(const WriterTask& task) {
  if (task.epoch <= active_epoch_)
    throw Error(ErrorKind::check, "writer epochs must grow: got " + std::to_string(task.epoch) +
                                      " after " + std::to_string(active_epoch_));
  std::atomic_ref<unsigned long long>(control_->passes.value).store(0, std::memory_order_relaxed);
  active_epoch_ = task.epoch;
  active_timeout_s_ = task.timeout_s;
  g_running_control.store(control_);
  launch_writer(task);
}

void Device::wait_ready(std::uint64_t epoch, double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (unsigned spins = 0; load_acquire(control_->ready) < epoch; ++spins) {
    // Check the clock and the backend only now and then: the flag load is the
    // latency being protected here.
    if ((spins & 0xFFF) == 0) {
      check_writer_alive();
      if (Clock::now() > deadline)
        throw Error(ErrorKind::timeout, "the " + info().backend +
                                            " writer did not set its ready flag within " +
                                            std::to_string(timeout_s) + " s");
    }
  }
}

std::uint64_t Device::passes_completed() const {
  return std::atomic_ref<const unsigned long long>(control_->passes.value)
      .load(std::memory_order_relaxed);
}

void Device::request_stop(std::uint64_t epoch) {
  std::atomic_ref<unsigned long long>(control_->stop.value).store(epoch, std::memory_order_release);
}

WriterOutcome Device::join_writer() {
  wait_writer_exit();
  g_running_control.store(nullptr);
  if (load_acquire(control_->done) != active_epoch_)
    throw Error(ErrorKind::device, "the " + info().backend + " writer of epoch " +
                                       std::to_string(active_epoch_) + " ended without a result");
  const auto& r = control_->result;
  WriterOutcome out;
  out.status = r.status == writer_status_timeout ? WriterStatus::timeout : WriterStatus::ok;
  out.passes = r.passes;
  out.t_start_ticks = r.t_start;
  out.t_ready_ticks = r.t_ready;
  out.t_end_ticks = r.t_end;
  return out;
}

void check_pinnable(std::size_t bytes) {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return;
  const auto physical = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
  if (bytes > physical)
    throw usage_error("cannot pin " + std::to_string(bytes) + " bytes: this node has " +
                      std::to_string(physical) + " bytes of physical memory");
}

void stop_running_writer_from_signal() {
  if (WriterControl* c = g_running_control.load())
    std::atomic_ref<unsigned long long>(c->stop.value).store(~0ull, std::memory_order_release);
}

}  // namespace hetprobe
