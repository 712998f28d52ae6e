#include "probes/signal/signal_engine.hpp"

#include "base/errors.hpp"
#include "probes/device/device_names.hpp"

namespace hetprobe {

const char* to_string(MemoryOrder order) { return kMemoryOrderNames.name(order); }

SignalEngine::SignalEngine(const Device& device, SignalResult* result, SignalResult* result_device)
    : device_(device), result_(result), result_device_(result_device) {}

SignalEngine::~SignalEngine() = default;

SignalTaskScope::~SignalTaskScope() {
  if (engine_ != nullptr) engine_->end_if_running();
}

SignalTaskScope SignalEngine::start(const SignalTask& task) {
  const double hz = device_.info().timer_hz;
  *result_ = SignalResult{};
  launch(SignalArgs{task.kind, task.order, task.to_device, task.to_host, task.stop, task.samples, task.target,
                    result_device_, task.count, task.first,
                    static_cast<std::uint64_t>(task.timeout_s * (hz > 0 ? hz : 1e9))});
  running_ = true;
  return SignalTaskScope(*this);
}

SignalOutcome SignalEngine::join() {
  running_ = false;
  wait_exit();
  const SignalResult r = *result_;  // the backend's wait ordered it before us
  if (r.status != signal_status_ok && r.status != signal_status_timeout)
    throw Error(ErrorKind::device, "the " + device_.info().backend + " signal task ended without a result");
  return {r.status == signal_status_timeout, r.completed, r.t_start, r.t_end, r.value};
}

void SignalEngine::end_if_running() noexcept {
  if (!running_) return;
  running_ = false;
  abandon();
}

double measure_timer_tick_ns(SignalEngine& engine, double timer_hz) {
  SignalTask t;
  t.kind = SignalKind::tick;
  t.count = 1 << 16;
  const SignalTaskScope task = engine.start(t);
  const SignalOutcome o = engine.join();
  return o.value == ~0ull ? 0 : static_cast<double>(o.value) / timer_hz * 1e9;
}

}  // namespace hetprobe
