// The GPU backends' copy engine: async copies between device memory and
// pinned host memory on lanes of their own. Included by gpu_device.cpp.
#pragma once

#include <vector>

#include "probes/copy/copy_engine.hpp"
#include "probes/device/portability.hpp"

namespace hetprobe::HETPROBE_BACKEND_NS {

// Copies on lanes of their own: a lane's copies go in order on one of a few
// streams (kStreams, made with the engine: before any kernel that waits for a
// copy is running), and each lane has an event after its last copy, so that a
// lane is done when its own copy is, whatever else shares its stream. Few
// streams, so that every stream of the process has a hardware queue of its own
// (gpu_device.cpp's claim_hardware_queues).
class GpuCopyEngine final : public CopyEngine {
 public:
  static constexpr std::size_t kStreams = 8;

  explicit GpuCopyEngine(int ordinal) : ordinal_(ordinal) {
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    for (auto& s : streams_) HP_CHECK(HP_RT(StreamCreateWithFlags)(&s, HP_RT(StreamNonBlocking)));
  }
  ~GpuCopyEngine() override {
    (void)HP_RT(SetDevice)(ordinal_);
    for (auto& s : streams_) {
      (void)HP_RT(StreamSynchronize)(s);
      (void)HP_RT(StreamDestroy)(s);
    }
    for (auto& e : done_) (void)HP_RT(EventDestroy)(e);
  }

  void start_to_host(int lane, std::byte* host_dst, const std::byte* device_src, std::size_t bytes) override {
    HP_CHECK(HP_RT(MemcpyAsync)(host_dst, device_src, bytes, HP_RT(MemcpyDeviceToHost), stream_of(lane)));
    HP_CHECK(HP_RT(EventRecord)(done_[static_cast<std::size_t>(lane)], stream_of(lane)));
  }

  void start_to_device(int lane, std::byte* device_dst, const std::byte* host_src, std::size_t bytes) override {
    HP_CHECK(HP_RT(MemcpyAsync)(device_dst, host_src, bytes, HP_RT(MemcpyHostToDevice), stream_of(lane)));
    HP_CHECK(HP_RT(EventRecord)(done_[static_cast<std::size_t>(lane)], stream_of(lane)));
  }

  void start_within_device(int lane, std::byte* device_dst, const std::byte* device_src, std::size_t bytes) override {
    HP_CHECK(HP_RT(MemcpyAsync)(device_dst, device_src, bytes, HP_RT(MemcpyDeviceToDevice), stream_of(lane)));
    HP_CHECK(HP_RT(EventRecord)(done_[static_cast<std::size_t>(lane)], stream_of(lane)));
  }

  bool done(int lane) override {
    const gpu::Error e = HP_RT(EventQuery)(done_.at(static_cast<std::size_t>(lane)));
    if (e == HP_RT(ErrorNotReady)) return false;
    HP_CHECK(e);
    return true;
  }

 private:
  // The lane's stream, its event made on first use (an event takes no queue).
  gpu::Stream stream_of(int lane) {
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    while (done_.size() <= static_cast<std::size_t>(lane)) {
      gpu::Event e{};
      HP_CHECK(HP_RT(EventCreateWithFlags)(&e, HP_RT(EventDisableTiming)));
      done_.push_back(e);
    }
    return streams_[static_cast<std::size_t>(lane) % kStreams];
  }

  int ordinal_;
  gpu::Stream streams_[kStreams]{};
  std::vector<gpu::Event> done_;  // per lane
};

}  // namespace hetprobe::HETPROBE_BACKEND_NS
