// The GPU backends' halo engine: halo_pack_kernel and halo_unpack_kernel on
// two streams of their own (one of each may run at once), halo_stacked_kernel
// cooperatively on the first. Included by gpu_device.cpp.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "probes/backends/gpu/gpu_kernels.hpp"
#include "probes/backends/gpu/gpu_waits.hpp"
#include "probes/halo/halo_engine.hpp"

namespace hetprobe::HETPROBE_BACKEND_NS {

class GpuHaloEngine final : public HaloEngine {
 public:
  explicit GpuHaloEngine(const Device& device) : info_(device.info()), waits_(info_.ordinal) {
    HP_CHECK(HP_RT(SetDevice)(info_.ordinal));
    for (auto& s : streams_) HP_CHECK(HP_RT(StreamCreateWithFlags)(&s, HP_RT(StreamNonBlocking)));
    HP_CHECK(HP_RT(Malloc)(reinterpret_cast<void**>(&grid_slot_), sizeof(unsigned long long)));
  }
  ~GpuHaloEngine() override {
    (void)HP_RT(SetDevice)(info_.ordinal);
    for (gpu::Stream s : streams_) waits_.abandon_if_busy(s);
    for (gpu::Stream s : streams_) {
      (void)HP_RT(StreamSynchronize)(s);
      (void)HP_RT(StreamDestroy)(s);
    }
    (void)HP_RT(Free)(grid_slot_);
  }

  WriterShape start(const HaloLaunch& launch) override {
    HP_CHECK(HP_RT(SetDevice)(info_.ordinal));
    waits_.keep();
    HaloArgs args = launch.args, unpack = launch.unpack;
    args.timeout_ticks = unpack.timeout_ticks = static_cast<std::uint64_t>(launch.timeout_s * info_.timer_hz);
    args.poll_pause_ticks = unpack.poll_pause_ticks = static_cast<std::uint64_t>(launch.poll_pause_ns * info_.timer_hz *
                                                                                 1e-9);
    const int threads = std::clamp(launch.threads_per_block, 1, info_.max_threads_per_block);
    gpu::Stream s = stream_of(launch.stage);
    if (launch.stage == HaloStage::stacked) {
      if (!info_.cooperative_launch)
        throw unsupported("notify-stacked needs cooperative launch, which " + info_.name + " does not support");
      const std::size_t tables = (args.count + unpack.count) * sizeof(HaloMessageArgs);
      if (tables > kStackedTablesMax)
        throw unsupported("notify-stacked keeps its " + std::to_string(args.count + unpack.count) +
                          " messages' table in shared memory: " + std::to_string(tables) + " bytes, more than " +
                          std::to_string(kStackedTablesMax));
      const WriterShape shape{stacked_blocks_per_sm(threads, tables) * info_.multiprocessors, threads};
      void* params[] = {&args, &unpack, &grid_slot_};
      HP_CHECK(HP_RT(LaunchCooperativeKernel)(reinterpret_cast<const void*>(halo_stacked_kernel), dim3(shape.blocks),
                                              dim3(threads), params, tables, s));
      return shape;
    }
    const auto blocks = static_cast<unsigned>(std::max<std::uint64_t>(1, args.count));
    if (launch.stage == HaloStage::pack) halo_pack_kernel<<<blocks, threads, 0, s>>>(args);
    else halo_unpack_kernel<<<blocks, threads, 0, s>>>(args);
    HP_CHECK(HP_RT(GetLastError)());
    return {static_cast<int>(blocks), threads};
  }

  void join(HaloStage stage) override { waits_.join(stream_of(stage)); }

 private:
  // Dynamic shared memory a kernel may use without opting in: notify-stacked's
  // message tables (48 B each) must fit.
  static constexpr std::size_t kStackedTablesMax = 48 * 1024;

  gpu::Stream stream_of(HaloStage stage) const { return streams_[stage == HaloStage::unpack ? 1 : 0]; }

  // Co-resident blocks per SM of halo_stacked_kernel, asked once per shape:
  // start runs inside a timed iteration.
  int stacked_blocks_per_sm(int threads, std::size_t shared_bytes) {
    int& per_sm = stacked_blocks_per_sm_[{threads, shared_bytes}];
    if (per_sm == 0)
      HP_CHECK(HP_RT(OccupancyMaxActiveBlocksPerMultiprocessor)(&per_sm,
                                                                reinterpret_cast<const void*>(halo_stacked_kernel),
                                                                threads, shared_bytes));
    return per_sm;
  }

  const DeviceInfo& info_;
  GpuWaits waits_;
  gpu::Stream streams_[2]{};                 // pack (and stacked), unpack
  unsigned long long* grid_slot_ = nullptr;  // notify-stacked's grid-wide broadcast word
  std::map<std::pair<int, std::size_t>, int> stacked_blocks_per_sm_;
};

}  // namespace hetprobe::HETPROBE_BACKEND_NS
