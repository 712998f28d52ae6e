#include "probes/device/device.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "bench/core/errors.hpp"
#include "probes/device/device_names.hpp"
#include "probes/device/host_spin.hpp"

namespace hetprobe {

namespace {
// The flag block of the running writer, for the signal handler.
std::atomic<WriterControl*> g_running_control{nullptr};
}  // namespace

const char* to_string(Access access) { return kAccessNames.name(access); }

PinnedBuffer::PinnedBuffer(std::byte* host, std::byte* device, std::size_t bytes,
                           std::function<void(std::byte*)> release)
    : host_(host), device_(device), bytes_(bytes), release_(std::move(release)) {}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept { *this = std::move(other); }

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    if ((host_ || device_) && release_) release_(host_ ? host_ : device_);
    host_ = std::exchange(other.host_, nullptr);
    device_ = std::exchange(other.device_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    release_ = std::move(other.release_);
  }
  return *this;
}

PinnedBuffer::~PinnedBuffer() {
  if ((host_ || device_) && release_) release_(host_ ? host_ : device_);
}

void Device::start_writer(const WriterTask& task) {
  if (task.epoch <= active_epoch_)
    throw Error(ErrorKind::check, "writer epochs must grow: got " + std::to_string(task.epoch) + " after " +
                                      std::to_string(active_epoch_));
  std::atomic_ref<unsigned long long>(control_->passes.value).store(0, std::memory_order_relaxed);
  active_epoch_ = task.epoch;
  active_timeout_s_ = task.timeout_s;
  g_running_control.store(control_);
  launch_writer(task);
}

void Device::wait_ready(std::uint64_t epoch, double timeout_s) {
  const std::string what = "the " + info().backend + " writer's ready flag";
  spin_host_for_epoch(control_->ready, epoch, [&] { check_writer_alive(); }, timeout_s, what.c_str());
}

std::uint64_t Device::passes_completed() const {
  return std::atomic_ref<const unsigned long long>(control_->passes.value).load(std::memory_order_relaxed);
}

void Device::request_stop(std::uint64_t epoch) {
  std::atomic_ref<unsigned long long>(control_->stop.value).store(epoch, std::memory_order_release);
}

WriterOutcome Device::join_writer() {
  wait_writer_exit();
  g_running_control.store(nullptr);
  if (load_acquire(control_->done) != active_epoch_)
    throw Error(ErrorKind::device, "the " + info().backend + " writer of epoch " + std::to_string(active_epoch_) +
                                       " ended without a result");
  const auto& r = control_->result;
  WriterOutcome out;
  out.status = r.status == writer_status_timeout ? WriterStatus::timeout : WriterStatus::ok;
  out.passes = r.passes;
  out.t_start_ticks = r.t_start;
  out.t_ready_ticks = r.t_ready;
  out.t_end_ticks = r.t_end;
  return out;
}

const char* to_string(MemoryOrder order) { return kMemoryOrderNames.name(order); }
const char* to_string(FlagPlacement placement) { return kFlagPlacementNames.name(placement); }
const char* to_string(HostCoherence coherence) { return kHostCoherenceNames.name(coherence); }
const char* to_string(LaunchMechanism m) { return kLaunchMechanismNames.name(m); }

PinnedBuffer Device::alloc_flags(FlagPlacement placement, HostCoherence coherence, std::size_t bytes) {
  if (coherence != HostCoherence::default_kind)
    throw unsupported(std::string(to_string(coherence)) + " host memory is a HIP allocation option; the " +
                      info().backend + " backend has none");
  if (placement != FlagPlacement::pinned)
    throw unsupported("the " + info().backend + " backend has no " + to_string(placement) + " memory");
  return alloc_pinned(bytes);
}

PinnedBuffer Device::alloc_device(std::size_t bytes) {
  return alloc_flags(FlagPlacement::device, HostCoherence::default_kind, bytes);
}

void Device::start_signal(const SignalTask& task) {
  const double hz = info().timer_hz;
  *signal_result_ = SignalResult{};
  launch_signal(SignalArgs{task.kind, task.order, task.to_device, task.to_host, task.stop, task.samples,
                           signal_result_dev_, task.count, task.first,
                           static_cast<std::uint64_t>(task.timeout_s * (hz > 0 ? hz : 1e9))});
}

SignalOutcome Device::join_signal() {
  wait_signal_exit();
  const SignalResult r = *signal_result_;  // the backend's wait ordered it before us
  if (r.status != signal_status_ok && r.status != signal_status_timeout)
    throw Error(ErrorKind::device, "the " + info().backend + " signal task ended without a result");
  return {r.status == signal_status_timeout, r.completed, r.t_start, r.t_end, r.value};
}

MechanismSamples Device::time_launch_mechanism(LaunchMechanism, const MechanismRun&) {
  MechanismSamples out;
  out.skipped = "no kernel launches on the " + info().backend + " backend";
  return out;
}

double Device::measure_timer_tick_ns() {
  SignalTask t;
  t.kind = SignalKind::tick;
  t.count = 1 << 16;
  start_signal(t);
  const SignalOutcome o = join_signal();
  return o.value == ~0ull ? 0 : static_cast<double>(o.value) / info().timer_hz * 1e9;
}

namespace {

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  return text;
}

// The first number in `path` after `key` (a /proc/meminfo line), or nothing.
std::optional<std::uint64_t> read_number(const char* path, const std::string& key = "") {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::istringstream fields(line.substr(key.size()));
    std::uint64_t n = 0;
    if (fields >> n) return n;
    return std::nullopt;  // "max": no limit
  }
  return std::nullopt;
}

}  // namespace

HostMemory host_memory() {
  HostMemory m;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) m.installed = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  if (auto kib = read_number("/proc/meminfo", "MemAvailable:")) m.available = *kib * 1024;
  else m.available = m.installed;
  // A container's or batch job's cgroup (v2) may allow less than the node has free.
  const auto limit = read_number("/sys/fs/cgroup/memory.max"), used = read_number("/sys/fs/cgroup/memory.current");
  if (limit && used && *limit > *used && *limit - *used < m.available) {
    m.available = *limit - *used;
    m.cgroup_limited = true;
  }
  return m;
}

void check_memory_available(std::uint64_t bytes, const std::string& what) {
  const HostMemory m = host_memory();
  if (m.available == 0 || bytes <= m.available) return;
  throw usage_error(what + " needs " + gib(bytes) + " of host memory; " + gib(m.available) + " is available now (" +
                    (m.cgroup_limited ? "this cgroup's limit less its use" : "MemAvailable in /proc/meminfo") +
                    ", of " + gib(m.installed) + " installed): ask for less");
}

void check_pinnable(std::size_t bytes) { check_memory_available(bytes, "pinning " + std::to_string(bytes) + " bytes"); }

void stop_running_writer_from_signal() {
  if (WriterControl* c = g_running_control.load())
    std::atomic_ref<unsigned long long>(c->stop.value).store(~0ull, std::memory_order_release);
}

}  // namespace hetprobe
