// The GPU backends' halo engine: halo_pack_kernel and halo_unpack_kernel on
// two streams of their own (one of each may run at once: notify-stream's
// persistent unpack waits while pack runs, so each may take only half of the
// blocks the GPU holds at once), halo_stacked_kernel cooperatively on the
// first. Included by gpu_device.cpp.
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

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
    // Every message's part state, both stages, made here: a cudaMalloc inside
    // start() may wait for the device to be idle, and notify-stream starts
    // its pack beside an unpack that spins until the pack's messages come.
    const std::vector<HaloPartState> fresh(kMaxMessages);
    for (HaloPartState*& p : parts_) {
      HP_CHECK(HP_RT(Malloc)(reinterpret_cast<void**>(&p), kMaxMessages * sizeof(HaloPartState)));
      HP_CHECK(HP_RT(Memcpy)(p, fresh.data(), kMaxMessages * sizeof(HaloPartState), HP_RT(MemcpyHostToDevice)));
    }
    for (HaloMessageArgs*& t : tables_) HP_CHECK(HP_RT(Malloc)(reinterpret_cast<void**>(&t), kTablesMax));
  }
  ~GpuHaloEngine() override {
    (void)HP_RT(SetDevice)(info_.ordinal);
    for (gpu::Stream s : streams_) waits_.abandon_if_busy(s);
    for (gpu::Stream s : streams_) {
      (void)HP_RT(StreamSynchronize)(s);
      (void)HP_RT(StreamDestroy)(s);
    }
    (void)HP_RT(Free)(grid_slot_);
    for (HaloPartState* p : parts_) (void)HP_RT(Free)(p);
    for (HaloMessageArgs* t : tables_) (void)HP_RT(Free)(t);
  }

  HaloShape start(const HaloLaunch& launch) override {
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
      if (launch.host_messages == nullptr || launch.host_unpack_messages == nullptr)
        throw Error(ErrorKind::check, "HaloEngine::start: a stacked launch without its host tables");
      const std::size_t tables = (args.count + unpack.count) * sizeof(HaloMessageArgs);
      if (tables > kTablesMax)
        throw unsupported("notify-stacked keeps its " + std::to_string(args.count + unpack.count) +
                          " messages' table in shared memory: " + std::to_string(tables) + " bytes, more than " +
                          std::to_string(kTablesMax));
      const int blocks = stacked_blocks_per_sm(threads, tables) * info_.multiprocessors;
      if (launch.parts.is_whole()) {
        args.part_size = unpack.part_size = PartSize::whole();
      } else {  // every part of a stage resident at once, as notify-stream's launches
        args.part_size = unpack.part_size = halo_part_size(launch.parts, launch.host_messages, args.count,
                                                           auto_part_min(threads), static_cast<std::uint64_t>(blocks));
        args.parts = parts_[0];
        unpack.parts = parts_[1];
      }
      args.messages = device_table(0, launch.host_messages, args.count, s);
      unpack.messages = device_table(1, launch.host_unpack_messages, unpack.count, s);
      const HaloShape shape{blocks, threads, args.part_size};
      void* params[] = {&args, &unpack, &grid_slot_};
      HP_CHECK(HP_RT(LaunchCooperativeKernel)(reinterpret_cast<const void*>(halo_stacked_kernel), dim3(shape.blocks),
                                              dim3(threads), params, tables, s));
      return shape;
    }
    const bool pack = launch.stage == HaloStage::pack;
    const std::size_t table = args.count * sizeof(HaloMessageArgs);
    if (table > kTablesMax)
      throw unsupported("the halo kernels keep their " + std::to_string(args.count) + " messages' table in shared " +
                        "memory: " + std::to_string(table) + " bytes, more than " + std::to_string(kTablesMax));
    const void* kernel = pack ? reinterpret_cast<const void*>(halo_pack_kernel)
                              : reinterpret_cast<const void*>(halo_unpack_kernel);
    const std::uint64_t room = static_cast<std::uint64_t>(blocks_per_sm(kernel, threads, table)) *
                               static_cast<std::uint64_t>(info_.multiprocessors) / 2;
    if (launch.host_messages == nullptr) throw Error(ErrorKind::check, "HaloEngine::start: no host_messages");
    args.part_size = halo_part_size(launch.parts, launch.host_messages, args.count, auto_part_min(threads),
                                    std::max<std::uint64_t>(1, room));
    args.parts = args.part_size.is_bytes() ? parts_[pack ? 0 : 1] : nullptr;
    args.messages = device_table(pack ? 0 : 1, launch.host_messages, args.count, s);
    const auto blocks = static_cast<unsigned>(halo_launch_teams(launch, launch.host_messages, args.part_size, room));
    if (pack) halo_pack_kernel<<<blocks, threads, table, s>>>(args);
    else halo_unpack_kernel<<<blocks, threads, table, s>>>(args);
    HP_CHECK(HP_RT(GetLastError)());
    return {static_cast<int>(blocks), threads, args.part_size};
  }

  void join(HaloStage stage) override { waits_.join(stream_of(stage)); }

 private:
  // Dynamic shared memory a kernel may use without opting in: the halo
  // kernels' message tables (48 B each) must fit.
  static constexpr std::size_t kTablesMax = 48 * 1024;
  static constexpr std::size_t kMaxMessages = kTablesMax / sizeof(HaloMessageArgs);  // a stage's, at most

  // Each thread keeps kHaloUnroll units in flight: a part of several rounds of the block.
  static std::uint64_t auto_part_min(int threads) {
    return std::max(kHaloAutoPartMinBytes, static_cast<std::uint64_t>(threads) * kHaloUnitBytes * kHaloUnroll);
  }

  gpu::Stream stream_of(HaloStage stage) const { return streams_[stage == HaloStage::unpack ? 1 : 0]; }

  // The stage's message table in device memory, copied (on the stage's
  // stream, before its kernel) only when it changed: a setup's table stays
  // the same over its iterations. Read from pinned memory, every block's
  // copy of it was a burst of PCIe reads at each launch, before its parts
  // could start (a launch's parts started up to several us apart).
  HaloMessageArgs* device_table(int i, const HaloMessageArgs* host, std::uint64_t count, gpu::Stream s) {
    std::vector<HaloMessageArgs>& last = uploaded_[i];
    const std::size_t bytes = count * sizeof(HaloMessageArgs);
    if (last.size() != count || std::memcmp(last.data(), host, bytes) != 0) {
      last.assign(host, host + count);
      HP_CHECK(HP_RT(MemcpyAsync)(tables_[i], last.data(), bytes, HP_RT(MemcpyHostToDevice), s));
      HP_CHECK(HP_RT(StreamSynchronize)(s));  // `last` is pageable: done before it can change
    }
    return tables_[i];
  }

  // Co-resident blocks per SM of a halo kernel, asked once per shape: start
  // runs inside a timed iteration.
  int blocks_per_sm(const void* kernel, int threads, std::size_t shared_bytes) {
    int& per_sm = blocks_per_sm_[{kernel, {threads, shared_bytes}}];
    if (per_sm == 0) HP_CHECK(HP_RT(OccupancyMaxActiveBlocksPerMultiprocessor)(&per_sm, kernel, threads, shared_bytes));
    return per_sm;
  }
  int stacked_blocks_per_sm(int threads, std::size_t shared_bytes) {
    return blocks_per_sm(reinterpret_cast<const void*>(halo_stacked_kernel), threads, shared_bytes);
  }

  const DeviceInfo& info_;
  GpuWaits waits_;
  gpu::Stream streams_[2]{};                 // pack (and stacked), unpack
  unsigned long long* grid_slot_ = nullptr;  // notify-stacked's grid-wide broadcast word
  std::map<std::pair<const void*, std::pair<int, std::size_t>>, int> blocks_per_sm_;
  HaloPartState* parts_[2]{};                 // pack, unpack: kMaxMessages each (HaloPartState{}: the last part of each
                                              // message leaves it so for the next launch)
  HaloMessageArgs* tables_[2]{};              // pack, unpack: the message tables in device memory
  std::vector<HaloMessageArgs> uploaded_[2];  // what tables_ hold
};

}  // namespace hetprobe::HETPROBE_BACKEND_NS
