// The GPU backends' copy engine: async copies between device memory and
// pinned host memory on lanes of their own. Included by gpu_device.cpp.
#pragma once

#include <vector>

#include "probes/copy/copy_engine.hpp"
#include "probes/device/portability.hpp"

namespace hetprobe::HETPROBE_BACKEND_NS {

// Copies on lanes of their own, one stream each, made as needed.
class GpuCopyEngine final : public CopyEngine {
 public:
  explicit GpuCopyEngine(int ordinal) : ordinal_(ordinal) {}
  ~GpuCopyEngine() override {
    (void)HP_RT(SetDevice)(ordinal_);
    for (auto& s : lanes_) {
      (void)HP_RT(StreamSynchronize)(s);
      (void)HP_RT(StreamDestroy)(s);
    }
  }

  void start_to_host(int lane, std::byte* host_dst, const std::byte* device_src, std::size_t bytes) override {
    HP_CHECK(HP_RT(MemcpyAsync)(host_dst, device_src, bytes, HP_RT(MemcpyDeviceToHost), lane_stream(lane)));
  }

  void start_to_device(int lane, std::byte* device_dst, const std::byte* host_src, std::size_t bytes) override {
    HP_CHECK(HP_RT(MemcpyAsync)(device_dst, host_src, bytes, HP_RT(MemcpyHostToDevice), lane_stream(lane)));
  }

  bool done(int lane) override {
    const gpu::Error e = HP_RT(StreamQuery)(lanes_.at(static_cast<std::size_t>(lane)));
    if (e == HP_RT(ErrorNotReady)) return false;
    HP_CHECK(e);
    return true;
  }

 private:
  gpu::Stream lane_stream(int lane) {
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    while (lanes_.size() <= static_cast<std::size_t>(lane)) {
      gpu::Stream s{};
      HP_CHECK(HP_RT(StreamCreateWithFlags)(&s, HP_RT(StreamNonBlocking)));
      lanes_.push_back(s);
    }
    return lanes_[static_cast<std::size_t>(lane)];
  }

  int ordinal_;
  std::vector<gpu::Stream> lanes_;
};

}  // namespace hetprobe::HETPROBE_BACKEND_NS
