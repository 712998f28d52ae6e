// A device's halo engine: the halo-exchange proxy's pack and unpack stages
// (halo_protocol.hpp) with teams (GPU blocks, host threads) over the parts of
// the messages, or both in one stacked launch (every co-resident block,
// grid-synchronised). The halo probe owns one.
#pragma once

#include <cstdint>

#include "probes/device/device.hpp"
#include "probes/halo/halo_protocol.hpp"
#include "probes/halo/part_size.hpp"

namespace hetprobe {

enum class HaloStage { pack, unpack, stacked };
struct HaloLaunch {
  HaloStage stage = HaloStage::pack;
  HaloArgs args{};                                 // pack or unpack (stacked: the pack); device addresses;
                                                   // timeout_ticks, part_size and parts are set by the engine
  HaloArgs unpack{};                               // stacked only: the unpack
  const HaloMessageArgs* host_messages = nullptr;  // args.messages as the host sees them (the engine reads sizes)
  const HaloMessageArgs* host_unpack_messages = nullptr;  // stacked only: unpack.messages as the host sees them
  double timeout_s = 30;                                  // an unpack gives up waiting for its flag after this
  double poll_pause_ns = 0;                               // GPU: pause between two reads of an unpack-ready flag
  int threads_per_block = 128;                            // GPU block size (clamped to the device's maximum)
  // pack and unpack: bytes per team; automatic: the engine's choice (enough
  // parts in flight for the link, as many as fit on the device at once);
  // whole: one team per message (Comb's fused kernels, the paper). A size is
  // rounded up to a multiple of kHaloUnitBytes. Stacked: whole is the
  // paper's form (long messages on the whole grid, one after the other);
  // otherwise every team takes parts of the pack's messages, then of the
  // unpack's, as notify-stream's two launches do, in one.
  PartSize parts = PartSize::automatic();
};

// An automatic part size's smallest part: a part ends with fences, a read
// back and atomics that cost about as long as one round of its block's
// loads, so a part takes several rounds. On an H200, 8 KiB parts of 128
// threads unpacked long messages at 17-37 GB/s, 32 KiB parts at 28-44
// (tests/gpu/halo_parts.sh); on two H100s, in three alternating launches
// each, 64 KiB parts of 128 threads moved cube 400's pinned baseline stages
// at 36.0-37.0 (pack) and 34.8-37.1 GB/s (unpack) where 32 KiB parts moved
// 31.6-34.6 and 30.7-32.6, and cube 800's at 45.1-46.2 and 41.6-42.6 where
// 32 KiB moved 40.4-43.0 and 37.5-38.7 (notebooks/data/halo-delivery/).
inline constexpr std::uint64_t kHaloAutoPartMinBytes = 64 * 1024;

// What a stage was launched with: teams (blocks x threads) and the part size,
// whole or bytes (stacked: whole; its long messages take the whole grid).
struct HaloShape {
  int blocks = 0;
  int threads_per_block = 0;
  PartSize parts = PartSize::whole();
};

class HaloEngine {
 public:
  virtual ~HaloEngine() = default;
  // Starts a stage and returns at once, with the shape it was launched with.
  // Pack and unpack have their own stream (threads), so one of each can run
  // at the same time; stacked runs alone.
  virtual HaloShape start(const HaloLaunch& launch) = 0;
  // Waits until the stage has ended; its waits give up by themselves after
  // the launch's timeout (the stamps say so), or at once after a stop
  // request, so this returns.
  virtual void join(HaloStage stage) = 0;
};

// The part size of a pack or unpack launch over `table` (host addresses):
// whole as asked, `asked` (HaloLaunch::parts) rounded up to a unit, or for
// automatic `auto_bytes` doubled until the teams fit in `max_teams`. Never
// automatic. Shared by the backends.
PartSize halo_part_size(PartSize asked, const HaloMessageArgs* table, std::uint64_t count, std::uint64_t auto_bytes,
                        std::uint64_t max_teams);

// The teams (GPU blocks) a pack or unpack launch over `table` starts with
// parts of `size` (whole or bytes): every part, at least 1 and at most
// `max_teams`. Teams beyond the first take every n-th part after it, in
// message order.
std::uint64_t halo_launch_teams(const HaloLaunch& launch, const HaloMessageArgs* table, PartSize size,
                                std::uint64_t max_teams);

}  // namespace hetprobe
