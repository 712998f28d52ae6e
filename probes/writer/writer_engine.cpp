#include "probes/writer/writer_engine.hpp"

#include <atomic>
#include <string>

#include "base/errors.hpp"
#include "base/stop_request.hpp"
#include "probes/device/host_spin.hpp"

namespace hetprobe {

WriterEngine::WriterEngine(const Device& device, WriterControl* control) : device_(device), control_(control) {}

WriterEngine::~WriterEngine() { unregister_stop_flag(&control_->stop.value); }

void WriterEngine::start(const WriterTask& task) {
  if (task.epoch <= epoch_)
    throw Error(ErrorKind::check,
                "writer epochs must grow: got " + std::to_string(task.epoch) + " after " + std::to_string(epoch_));
  std::atomic_ref<unsigned long long>(control_->passes.value).store(0, std::memory_order_relaxed);
  epoch_ = task.epoch;
  (void)register_stop_flag(&control_->stop.value);  // a Ctrl-C stops it at once
  launch(task);
  running_ = true;
}

void WriterEngine::wait_ready(std::uint64_t epoch, double timeout_s) {
  const std::string what = "the " + device_.info().backend + " writer's ready flag";
  spin_host_for_epoch(control_->ready, epoch, [&] { check_alive(); }, timeout_s, what.c_str());
}

std::uint64_t WriterEngine::passes_completed() const {
  return std::atomic_ref<const unsigned long long>(control_->passes.value).load(std::memory_order_relaxed);
}

void WriterEngine::request_stop(std::uint64_t epoch) {
  std::atomic_ref<unsigned long long>(control_->stop.value).store(epoch, std::memory_order_release);
}

WriterOutcome WriterEngine::join() {
  running_ = false;
  wait_exit();
  unregister_stop_flag(&control_->stop.value);
  if (load_acquire(control_->done) != epoch_)
    throw Error(ErrorKind::device, "the " + device_.info().backend + " writer of epoch " + std::to_string(epoch_) +
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

}  // namespace hetprobe
