#include "probes/load/load_engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "base/errors.hpp"
#include "base/stop_request.hpp"
#include "probes/device/host_spin.hpp"
#include "probes/load/load_names.hpp"

namespace hetprobe {

namespace {
constexpr std::uint64_t kRingStamps = 1ull << 20;  // about 1 s of stamps at the reporter's 1 us (16 MiB)
}  // namespace

const char* to_string(LoadKind kind) { return kLoadKindNames.name(kind); }
LoadKind parse_load_kind(const std::string& text) { return kLoadKindNames.parse(text); }

LoadEngine::LoadEngine(const Device& device, PinnedBuffer memory) : device_(device), memory_(std::move(memory)) {
  if (memory_.size() < control_and_ring_bytes()) throw Error(ErrorKind::check, "load engine memory too small");
  control_ = new (memory_.host()) LoadControl{};
  ring_ = reinterpret_cast<LoadStamp*>(memory_.host() + sizeof(LoadControl));
  ring_mask_ = kRingStamps - 1;
}

LoadEngine::~LoadEngine() { unregister_stop_flag(&control_->stop.value); }

std::size_t LoadEngine::control_and_ring_bytes() { return sizeof(LoadControl) + kRingStamps * sizeof(LoadStamp); }

LoadControl* LoadEngine::control_device() const {
  return reinterpret_cast<LoadControl*>(memory_.device_at(reinterpret_cast<const std::byte*>(control_)));
}

LoadStamp* LoadEngine::ring_device() const {
  return reinterpret_cast<LoadStamp*>(memory_.device_at(reinterpret_cast<const std::byte*>(ring_)));
}

void LoadEngine::begin(const LoadTask& task) {
  if (task.epoch <= epoch_)
    throw Error(ErrorKind::check,
                "load epochs must grow: got " + std::to_string(task.epoch) + " after " + std::to_string(epoch_));
  if (task.kind == LoadKind::none) throw usage_error("a load of kind none has nothing to start");
  if (task.target == nullptr || task.target_bytes == 0) throw usage_error("a load needs a target region");
  if (!(task.rate_gbs >= 0)) throw usage_error("a load's rate must not be negative");
  epoch_ = task.epoch;
  timeout_s_ = task.timeout_s;
  std::atomic_ref<unsigned long long>(control_->stamps.value).store(0, std::memory_order_relaxed);
  (void)register_stop_flag(&control_->stop.value);  // a Ctrl-C stops it at once
}

LoadArgs LoadEngine::protocol_args(const LoadTask& task, const LoadShape& shape, LoadShared* shared,
                                   std::byte* copy_source) const {
  const double hz = device_.info().timer_hz;
  const auto ticks = [hz](double seconds) { return static_cast<std::uint64_t>(seconds * hz); };
  LoadOp op = LoadOp::copy;
  if (task.kind == LoadKind::write) op = LoadOp::write;
  if (task.kind == LoadKind::read) op = LoadOp::read;
  if (task.kind == LoadKind::poll) op = LoadOp::poll;
  LoadArgs a{};
  a.op = op;
  a.target = reinterpret_cast<unsigned char*>(task.target);
  a.target_bytes = task.target_bytes;
  a.source = reinterpret_cast<unsigned char*>(copy_source);
  a.copy_to_source = task.kind == LoadKind::copy_h2d;
  a.control = control_device();
  a.ring = ring_device();
  a.ring_mask = ring_mask_;
  a.shared = shared;
  a.epoch = task.epoch;
  a.workers = static_cast<std::uint64_t>(shape.workers);
  // Paced, a worker moves small chunks: its bursts stay short and the traffic even.
  a.chunk_bytes = task.rate_gbs > 0 ? std::min<std::uint64_t>(shape.chunk_bytes, 4096) : shape.chunk_bytes;
  a.bytes_per_tick = task.rate_gbs * 1e9 / hz;
  a.stamp_every_ticks = ticks(1e-6);
  a.ready_grace_ticks = ticks(0.05);  // a grid starts in microseconds; host threads on a busy machine, later
  a.timeout_ticks = ticks(task.timeout_s);
  if (op == LoadOp::poll &&
      reinterpret_cast<std::uintptr_t>(poll_flag(a)) + 8 > reinterpret_cast<std::uintptr_t>(a.target) + a.target_bytes)
    throw usage_error("a poll load needs an 8-byte aligned word inside its " + std::to_string(a.target_bytes) +
                      "-byte target");
  return a;
}

void LoadEngine::wait_ready(double timeout_s) {
  const std::string what = "the start of the " + device_.info().backend + " load";
  spin_host_for_epoch(control_->ready, epoch_, [&] { check_alive(); }, timeout_s, what.c_str());
}

void LoadEngine::keep_alive() {
  std::atomic_ref<unsigned long long>(control_->alive.value).fetch_add(1, std::memory_order_release);
}

void LoadEngine::request_stop() {
  std::atomic_ref<unsigned long long>(control_->stop.value).store(epoch_, std::memory_order_release);
}

LoadOutcome LoadEngine::finish() {
  unregister_stop_flag(&control_->stop.value);
  if (load_acquire(control_->done) != epoch_)
    throw Error(ErrorKind::device, "the " + device_.info().backend + " load of epoch " + std::to_string(epoch_) +
                                       " ended without a result");
  const auto& r = control_->result;
  LoadOutcome out;
  out.timed_out = r.status == writer_status_timeout;
  out.bytes = r.bytes;
  out.t_start_ticks = r.t_start;
  out.t_ready_ticks = r.t_ready;
  out.t_end_ticks = r.t_end;
  out.workers_started = r.workers_started;
  out.control_reads = r.control_reads;
  out.stamps = stamps_ = load_acquire(control_->stamps);
  if (out.timed_out)
    throw Error(ErrorKind::timeout, "the " + device_.info().backend + " load gave up: no sign from the host for " +
                                        std::to_string(timeout_s_) + " s (--timeout)");
  return out;
}

std::optional<double> LoadEngine::bytes_between(std::uint64_t from, std::uint64_t to) const {
  if (stamps_ == 0 || to < from) return std::nullopt;
  const std::uint64_t first = stamps_ > kRingStamps ? stamps_ - kRingStamps : 0;
  auto at = [&](std::uint64_t i) { return ring_[i & ring_mask_]; };
  // Bytes moved by `ticks`, linear between the stamps on either side.
  auto bytes_at = [&](std::uint64_t ticks) -> std::optional<double> {
    if (ticks < at(first).ticks || ticks > at(stamps_ - 1).ticks) return std::nullopt;
    std::uint64_t lo = first, hi = stamps_ - 1;  // at(lo).ticks <= ticks <= at(hi).ticks
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (at(mid).ticks <= ticks ? lo : hi) = mid;
    }
    const LoadStamp a = at(lo), b = at(hi);
    if (b.ticks == a.ticks) return static_cast<double>(b.bytes);
    const double f = static_cast<double>(ticks - a.ticks) / static_cast<double>(b.ticks - a.ticks);
    return static_cast<double>(a.bytes) + f * (static_cast<double>(b.bytes) - static_cast<double>(a.bytes));
  };
  const auto a = bytes_at(from), b = bytes_at(to);
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

double LoadEngine::rate_gbs(const LoadOutcome& o) const {
  const double span = static_cast<double>(o.t_end_ticks - o.t_ready_ticks) / device_.info().timer_hz;
  const auto moved = bytes_between(o.t_ready_ticks, o.t_end_ticks);
  return span > 0 ? (moved ? *moved : static_cast<double>(o.bytes)) / span * 1e-9 : 0.0;
}

double run_for_rate_gbs(LoadEngine& engine, const LoadTask& task, double seconds) {
  engine.start(task);
  engine.wait_ready(task.timeout_s);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  engine.request_stop();
  return engine.rate_gbs(engine.join());
}

}  // namespace hetprobe
