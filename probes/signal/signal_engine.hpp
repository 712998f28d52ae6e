// A device's signal engine: one device thread running a task of
// signal_protocol.hpp (echo, initiate, overhead, poll, tick, the handover
// pairs, the timer's cost) against flags
// the host reads and writes. The notify and clock probes own one each; the
// GPU's launch engine uses one for the device-flag echo.
#pragma once

#include <cstdint>
#include <utility>

#include "probes/device/device.hpp"
#include "probes/signal/signal_protocol.hpp"

namespace hetprobe {

const char* to_string(MemoryOrder order);

// One task for the device's signal thread (see signal_protocol.hpp).
// Addresses are device addresses; result and timeout are filled in by the engine.
struct SignalTask {
  SignalKind kind = SignalKind::echo;
  MemoryOrder order = MemoryOrder::volatile_access;
  unsigned long long* to_device = nullptr;
  unsigned long long* to_host = nullptr;
  unsigned long long* stop = nullptr;
  unsigned long long* samples = nullptr;
  unsigned long long* target = nullptr;
  std::uint64_t count = 0;
  std::uint64_t first = 1;
  double timeout_s = 30;
};

struct SignalOutcome {
  bool timed_out = false;
  std::uint64_t completed = 0;
  std::uint64_t t_start_ticks = 0, t_end_ticks = 0;
  std::uint64_t value = 0;
};

class SignalEngine;

// The scope of a started task. The task may use memory declared before it;
// leaving the scope without join() (an exception unwinding) ends the task and
// waits for it, so that it never touches that memory after it is freed.
class [[nodiscard]] SignalTaskScope {
 public:
  explicit SignalTaskScope(SignalEngine& engine) : engine_(&engine) {}
  ~SignalTaskScope();
  SignalTaskScope(SignalTaskScope&& other) noexcept : engine_(std::exchange(other.engine_, nullptr)) {}
  SignalTaskScope(const SignalTaskScope&) = delete;
  SignalTaskScope& operator=(const SignalTaskScope&) = delete;
  SignalTaskScope& operator=(SignalTaskScope&&) = delete;

 private:
  SignalEngine* engine_;
};

class SignalEngine {
 public:
  virtual ~SignalEngine();
  SignalEngine(const SignalEngine&) = delete;
  SignalEngine& operator=(const SignalEngine&) = delete;

  // Runs a task on one device thread and returns once it is launched. One
  // task at a time per engine; it may run beside a writer. Keep the scope
  // until the task is joined.
  SignalTaskScope start(const SignalTask& task);
  // Waits for the task to end (it gives up by itself after its timeout, or
  // at once after a stop request) and returns what it did.
  SignalOutcome join();
  // Ends a task still running (its waits give up at once) and waits for it;
  // its result is dropped. Does nothing when no task runs.
  void end_if_running() noexcept;

 protected:
  // `result` is where tasks put their result, as the host and the device see it.
  SignalEngine(const Device& device, SignalResult* result, SignalResult* result_device);
  virtual void launch(const SignalArgs& args) = 0;
  virtual void wait_exit() = 0;
  // Makes the running task's waits give up, then waits for it; never throws.
  virtual void abandon() noexcept = 0;
  const Device& device_;

 private:
  bool running_ = false;
  SignalResult* result_;
  SignalResult* result_device_;
};

// The smallest step of the device timer, in ns, measured with a tick task on
// `engine` (info().timer_hz must be set): backends call it when they
// calibrate the timer, once per process and device.
double measure_timer_tick_ns(SignalEngine& engine, double timer_hz);

}  // namespace hetprobe
