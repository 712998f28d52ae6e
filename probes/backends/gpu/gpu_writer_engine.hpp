// The GPU backends' writer engine: writer_stream_kernel (one block) or
// writer_stacked_kernel (a cooperative grid of every co-resident block) on
// the engine's own stream. Included by gpu_device.cpp.
#pragma once

#include <algorithm>

#include "probes/backends/gpu/gpu_kernels.hpp"
#include "probes/writer/writer_engine.hpp"

namespace hetprobe::HETPROBE_BACKEND_NS {

inline WriterControl* new_pinned_control() {
  WriterControl* c = nullptr;
  HP_CHECK(gpu::host_alloc(reinterpret_cast<void**>(&c), sizeof(WriterControl)));
  *c = WriterControl{};
  return c;
}

class GpuWriterEngine final : public WriterEngine {
 public:
  explicit GpuWriterEngine(const Device& device)
      : WriterEngine(device, new_pinned_control()), ordinal_(device.info().ordinal) {
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    HP_CHECK(HP_RT(StreamCreateWithFlags)(&stream_, HP_RT(StreamNonBlocking)));
    HP_CHECK(HP_RT(HostGetDevicePointer)(reinterpret_cast<void**>(&control_dev_), control_block(), 0));
    HP_CHECK(HP_RT(Malloc)(reinterpret_cast<void**>(&broadcast_), 2 * sizeof(unsigned long long)));
    HP_CHECK(HP_RT(Memset)(broadcast_, 0, 2 * sizeof(unsigned long long)));
    stream_shape_ = {1, max_threads(reinterpret_cast<const void*>(writer_stream_kernel))};
    const int threads = max_threads(reinterpret_cast<const void*>(writer_stacked_kernel));
    int per_sm = 0;
    HP_CHECK(HP_RT(OccupancyMaxActiveBlocksPerMultiprocessor)(&per_sm,
                                                              reinterpret_cast<const void*>(writer_stacked_kernel),
                                                              threads, 0));
    stacked_shape_ = {per_sm * device.info().multiprocessors, threads};
  }

  ~GpuWriterEngine() override {
    (void)HP_RT(SetDevice)(ordinal_);
    if (running()) {
      request_stop(~0ull);
      (void)HP_RT(StreamSynchronize)(stream_);
    }
    (void)HP_RT(StreamDestroy)(stream_);
    (void)HP_RT(Free)(broadcast_);
    (void)gpu::host_free(control_block());
  }

  WriterShape shape(Access access) const override { return access == Access::stream ? stream_shape_ : stacked_shape_; }

 protected:
  void launch(const WriterTask& task) override {
    const DeviceInfo& info = device_.info();
    WriterArgs args{reinterpret_cast<unsigned char*>(task.pre),
                    task.pre_bytes,
                    reinterpret_cast<unsigned char*>(task.post),
                    task.post_bytes,
                    control_dev_,
                    broadcast_,
                    task.epoch,
                    static_cast<std::uint64_t>(task.timeout_s * info.timer_hz)};
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    if (task.access == Access::stream) {
      writer_stream_kernel<<<stream_shape_.blocks, stream_shape_.threads_per_block, 0, stream_>>>(args);
      HP_CHECK(HP_RT(GetLastError)());
      return;
    }
    if (!info.cooperative_launch)
      throw usage_error("stacked access needs cooperative launch, which " + info.name + " does not support");
    void* params[] = {&args};
    HP_CHECK(HP_RT(LaunchCooperativeKernel)(reinterpret_cast<const void*>(writer_stacked_kernel),
                                            dim3(stacked_shape_.blocks), dim3(stacked_shape_.threads_per_block), params,
                                            0, stream_));
  }

  void wait_exit() override { HP_CHECK(HP_RT(StreamSynchronize)(stream_)); }

  void check_alive() override {
    const gpu::Error e = HP_RT(StreamQuery)(stream_);
    if (e != gpu::kSuccess && e != HP_RT(ErrorNotReady)) HP_CHECK(e);
  }

 private:
  int max_threads(const void* kernel) const {
    gpu::FuncAttributes attr{};
    HP_CHECK(HP_RT(FuncGetAttributes)(&attr, kernel));
    return std::min(attr.maxThreadsPerBlock, device_.info().max_threads_per_block);
  }

  int ordinal_;
  gpu::Stream stream_{};
  WriterControl* control_dev_ = nullptr;
  unsigned long long* broadcast_ = nullptr;  // the grid's decision slots, device memory
  WriterShape stream_shape_, stacked_shape_;
};

}  // namespace hetprobe::HETPROBE_BACKEND_NS
