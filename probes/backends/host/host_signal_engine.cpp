// The host backend's signal engine: one CPU thread plays the device thread.
#include <atomic>
#include <memory>
#include <thread>

#include "probes/backends/host/host_engines.hpp"
#include "probes/signal/host_signal_ops.hpp"

namespace hetprobe::host_backend {

namespace {

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
    thread_ = std::thread([this, args] {
      HostSignalOps ops{&abandoned_};
      run_signal(ops, args);
    });
  }

  void wait_exit() override {
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
