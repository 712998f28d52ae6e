// The GPU backends' signal engine: signal_kernel, one thread, on the
// engine's own stream. Included by gpu_device.cpp.
#pragma once

#include "probes/backends/gpu/gpu_kernels.hpp"
#include "probes/backends/gpu/gpu_waits.hpp"
#include "probes/signal/signal_engine.hpp"

namespace hetprobe::HETPROBE_BACKEND_NS {

inline SignalResult* new_pinned_result() {
  SignalResult* r = nullptr;
  HP_CHECK(gpu::host_alloc(reinterpret_cast<void**>(&r), sizeof(SignalResult)));
  *r = SignalResult{};
  return r;
}

inline SignalResult* device_view(SignalResult* host) {
  SignalResult* dev = nullptr;
  HP_CHECK(HP_RT(HostGetDevicePointer)(reinterpret_cast<void**>(&dev), host, 0));
  return dev;
}

class GpuSignalEngine final : public SignalEngine {
 public:
  // `result` is pinned (new_pinned_result); the engine frees it.
  GpuSignalEngine(const Device& device, SignalResult* result)
      : SignalEngine(device, result, device_view(result)), result_(result), waits_(device.info().ordinal) {
    HP_CHECK(HP_RT(SetDevice)(device.info().ordinal));
    HP_CHECK(HP_RT(StreamCreateWithFlags)(&stream_, HP_RT(StreamNonBlocking)));
  }
  ~GpuSignalEngine() override {
    (void)HP_RT(SetDevice)(device_.info().ordinal);
    waits_.abandon_if_busy(stream_);
    (void)HP_RT(StreamSynchronize)(stream_);
    (void)HP_RT(StreamDestroy)(stream_);
    (void)gpu::host_free(result_);
  }

 protected:
  void launch(const SignalArgs& args) override {
    HP_CHECK(HP_RT(SetDevice)(device_.info().ordinal));
    waits_.keep();
    signal_kernel<<<1, 1, 0, stream_>>>(args);
    HP_CHECK(HP_RT(GetLastError)());
  }

  void wait_exit() override { waits_.join(stream_); }

  void abandon() noexcept override {
    (void)HP_RT(SetDevice)(device_.info().ordinal);
    waits_.abandon_if_busy(stream_);
    (void)HP_RT(StreamSynchronize)(stream_);
  }

 private:
  SignalResult* result_;
  GpuWaits waits_;
  gpu::Stream stream_{};
};

}  // namespace hetprobe::HETPROBE_BACKEND_NS
