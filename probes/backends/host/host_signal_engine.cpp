// The host backend's signal engine: one CPU thread plays the device thread.
#include <atomic>
#include <memory>
#include <thread>

#include "base/thread_affinity.hpp"
#include "probes/backends/host/host_engines.hpp"
#include "probes/signal/host_signal_ops.hpp"

namespace hetprobe::host_backend {

namespace {

// The device thread of a slowed device: each flag store waits (factor - 1) x
// the time since its previous store (or since the task began) first, so the
// thread's cycle, its waits for the host included, takes factor times as long:
// notify's round trips and clock's ping-pong show it.
struct SlowedSignalOps : HostSignalOps {
  WorkStretch work;
  void store_volatile(unsigned long long* p, unsigned long long v) {
    work.stretch();
    HostSignalOps::store_volatile(p, v);
  }
  void store_relaxed(unsigned long long* p, unsigned long long v) {
    work.stretch();
    HostSignalOps::store_relaxed(p, v);
  }
  void store_release(unsigned long long* p, unsigned long long v) {
    work.stretch();
    HostSignalOps::store_release(p, v);
  }
};

class HostSignalEngine final : public SignalEngine {
 public:
  HostSignalEngine(const Device& device, PinnedBuffer result)
      : SignalEngine(device, new(result.host()) SignalResult{}, reinterpret_cast<SignalResult*>(result.device())),
        result_(std::move(result)) {}
  ~HostSignalEngine() override {
    abandoned_.store(true, std::memory_order_release);  // a thread still waiting ends now
    if (thread_.joinable()) thread_.join();
  }

 protected:
  void launch(const SignalArgs& args) override {
    abandoned_.store(false, std::memory_order_release);
    const double slowdown = device_.info().simulated_slowdown;
    // The "device" is another processor: off the launching thread's CPU.
    thread_ = std::thread([this, args, slowdown, cpus = cpus_besides_this_one()] {
      bind_current_thread(cpus);
      if (slowdown != 1) {
        SlowedSignalOps ops{{&abandoned_}, WorkStretch(slowdown)};
        run_signal(ops, args);
        return;
      }
      HostSignalOps ops{&abandoned_};
      run_signal(ops, args);
    });
  }

  void wait_exit() override {
    if (thread_.joinable()) thread_.join();
  }

  void abandon() noexcept override {
    abandoned_.store(true, std::memory_order_release);
    if (thread_.joinable()) thread_.join();
  }

 private:
  PinnedBuffer result_;
  std::thread thread_;
  std::atomic<bool> abandoned_{false};  // set on close: the thread gives its waits up
};

}  // namespace

std::unique_ptr<SignalEngine> make_signal_engine(Device& device) {
  return std::make_unique<HostSignalEngine>(device, device.alloc_pinned(sizeof(SignalResult)));
}

}  // namespace hetprobe::host_backend
