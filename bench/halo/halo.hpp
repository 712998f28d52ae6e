// The halo-exchange proxy (probe `halo`): iterations of pack, MPI exchange
// and unpack of a rank's halo messages (halo_layout.hpp), in three variants
// (paper 002 Sec. 3, 4.1 and 4.2; thesis 003 Sec. 3.3 to 3.5):
//   baseline:        fused pack kernel (one block per message), device
//                    synchronise, MPI sends and receives, fused unpack kernel,
//                    device synchronise (the paper's Algorithm 1, as Comb);
//   notify-stream:   persistent pack and unpack kernels on two streams, one
//                    block per message; the CPU sends each message as soon as
//                    the device says it is packed (phase A), then, as each
//                    receive completes (MPI_Testany), sets its unpack-ready
//                    flag (phase B);
//   notify-stacked:  one persistent cooperative kernel of every co-resident
//                    block: each block packs its parts of the messages, then
//                    unpacks its parts as their flags come (with whole
//                    messages, the paper's form: long messages packed and
//                    unpacked by the whole grid one after the other, short
//                    ones by one block each); the same CPU phases.
// And the thesis's dimensions: blocking or non-blocking sends; the baseline's
// receives by MPI_Waitall or an MPI_Testany loop; how the device says a message
// is packed (a flag per message: the per-block channel; or a single task queue
// appended with atomics); and where it packs and unpacks (pinned host memory
// MPI reads and writes, or device memory with one copy per message on its own
// stream: device-to-host before the send, host-to-device after the receive:
// memcpy). Pack and unpack split a long message into parts, one block each,
// so that it moves at the link's rate (--parts; `whole`: one block per
// message, as Comb's fused kernels and the paper).
// Receives are pre-posted MPI_Irecv at the start of every iteration; every
// iteration starts with MPI_Barrier; every unpacked word is checked against
// what its sender must have packed (iteration, sender rank, tag, index).
#pragma once

#include <string>
#include <vector>

#include "base/enum_table.hpp"
#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"
#include "bench/core/send_mode.hpp"
#include "bench/halo/halo_layout.hpp"
#include "bench/halo/halo_link.hpp"
#include "bench/halo/halo_parts.hpp"
#include "bench/protocols/clock_fit.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"
#include "probes/halo/halo_engine.hpp"

namespace hetprobe {

enum class HaloVariant { baseline, notify_stream, notify_stacked };
enum class HaloSignal { channel, queue };         // how the device says "packed" (notify variants)
enum class HaloStaging { pinned, memcpy };        // where pack writes what MPI sends
enum class HaloReceiveWait { waitall, testany };  // the baseline's: MPI_Waitall, or an MPI_Testany loop
enum class HaloTimeline { all, median, none };    // which iterations' timelines the records keep
inline constexpr EnumTable<HaloVariant, 3> kHaloVariantNames{"halo variant",
                                                             {{{HaloVariant::baseline, "baseline"},
                                                               {HaloVariant::notify_stream, "notify-stream"},
                                                               {HaloVariant::notify_stacked, "notify-stacked"}}}};
inline constexpr EnumTable<HaloSignal, 2> kHaloSignalNames{"halo signal",
                                                           {{{HaloSignal::channel, "channel"},
                                                             {HaloSignal::queue, "queue"}}}};
inline constexpr EnumTable<HaloStaging, 2> kHaloStagingNames{"halo staging",
                                                             {{{HaloStaging::pinned, "pinned"},
                                                               {HaloStaging::memcpy, "memcpy"}}}};
inline constexpr EnumTable<HaloReceiveWait, 2> kHaloReceiveWaitNames{"receive wait",
                                                                     {{{HaloReceiveWait::waitall, "waitall"},
                                                                       {HaloReceiveWait::testany, "testany"}}}};
inline constexpr EnumTable<HaloTimeline, 3> kHaloTimelineNames{"timeline",
                                                               {{{HaloTimeline::all, "all"},
                                                                 {HaloTimeline::median, "median"},
                                                                 {HaloTimeline::none, "none"}}}};
inline const char* to_string(HaloVariant v) { return kHaloVariantNames.name(v); }
inline const char* to_string(HaloSignal s) { return kHaloSignalNames.name(s); }
inline const char* to_string(HaloStaging s) { return kHaloStagingNames.name(s); }
inline const char* to_string(HaloReceiveWait w) { return kHaloReceiveWaitNames.name(w); }
inline const char* to_string(HaloTimeline t) { return kHaloTimelineNames.name(t); }

// One measured combination.
struct HaloSetup {
  HaloVariant variant = HaloVariant::baseline;
  SendMode send_mode = SendMode::isend;
  HaloReceiveWait receive_wait = HaloReceiveWait::waitall;  // the baseline's (notify: always an MPI_Testany loop)
  HaloSignal signal = HaloSignal::channel;                  // notify variants only
  HaloStaging staging = HaloStaging::pinned;
  int threads_per_block = 128;
  std::uint64_t poll_pause_ns = 0;  // notify variants only
  PartSize parts;                   // pack and unpack teams (halo_engine.hpp)
  // "notify-stream isend channel pinned 128t" (+ " pause 500ns", " whole" or
  // " part 32KiB": the parts' text form, when not auto): the key records and
  // tables use.
  std::string label() const;
  // notify-stacked in the paper's form (--parts whole): its long messages
  // (HaloConfig::long_bytes) on the whole grid.
  bool long_messages_on_grid() const { return variant == HaloVariant::notify_stacked && parts.is_whole(); }
};

struct HaloConfig {
  std::vector<HaloVariant> variants{HaloVariant::baseline, HaloVariant::notify_stream, HaloVariant::notify_stacked};
  std::vector<SendMode> send_modes{SendMode::isend};
  std::vector<HaloReceiveWait> receive_waits{HaloReceiveWait::waitall};
  std::vector<HaloSignal> signals{HaloSignal::channel};
  std::vector<HaloStaging> stagings{HaloStaging::pinned};
  std::vector<int> threads_per_block{128};
  std::uint64_t long_bytes = 0;  // notify-stacked, whole: messages this big use the whole grid; 0: half the largest
  std::vector<std::uint64_t> poll_pause_ns{0};         // GPU unpack: pause between reads of its flag (notify variants)
  std::vector<PartSize> parts{PartSize::automatic()};  // baseline and notify-stream: bytes per block
  // Rounds: each visits every setup once, in a shuffled order (seeded:
  // round_order), and a setup's speed-up is paired within its round, so that
  // a transient falls on one round of every setup, not on one setup.
  int rounds = 10;
  int iterations = 5;      // timed, per visit
  int warmup = 2;          // untimed, first in each visit (the first sends pay MPI's handshakes)
  std::uint64_t seed = 1;  // the rounds' orders (the CLI draws one unless --seed is given)
  double timeout_s = 30;
  // Which iterations' timelines the records keep: all, median (the median
  // iteration's alone: sweeps of many setups stay small), or none.
  HaloTimeline timeline = HaloTimeline::all;
  // Every combination, threads outermost; the baseline's receive waits and the
  // notify variants' signals vary, each only where it applies.
  std::vector<HaloSetup> setups() const;
  Json to_json() const;
};

// What one rank measured of one variant. Times in host-clock ns relative to
// the iteration's start (after its barrier); device stamps mapped with `clock`.
struct HaloIteration {
  int round = 0;  // of the visit that timed it
  double total_ns = 0;
  std::vector<double> pack_start_ns, pack_end_ns, send_ns;      // per send (index order)
  std::vector<double> copy_start_ns, copy_end_ns;               // per send, memcpy staging only
  std::vector<double> recv_ns, unpack_start_ns, unpack_end_ns;  // per receive (layout order)
  std::vector<double> recv_copy_end_ns;                         // per receive, memcpy staging only
};
struct HaloRun {
  HaloSetup setup;
  HaloShape launch;                       // blocks x threads (and part size) of the pack (or stacked) launch
  HaloShape unpack_launch;                // of the unpack launch (stacked: none)
  std::uint64_t long_bytes = 0;           // notify-stacked: the whole grid's messages are at least this big
  std::vector<HaloIteration> iterations;  // the timed ones
  std::vector<double> pack_device_ns, unpack_device_ns;  // per message: median device duration
  unsigned long long mismatched_words = 0;
  int timeouts = 0;              // unpacks whose flag never came
  ClockFit clock;                // device -> host, from syncs before and after
  std::optional<HaloLink> link;  // the copy engine's rates, once per run (halo_link.hpp)
};

// Runs every setup of `config` on this rank (collective over mpi.comm), in
// its rounds; `stream` (the layout's place in the run) seeds the rounds'
// orders with config.seed.
std::vector<HaloRun> run_halo(const HaloConfig& config, const HaloLayout& layout, std::uint64_t stream, Device& device,
                              const MpiContext& mpi, const HostClock& clock);

// One-way MPI time (RTT/2, median of `reps`) between this rank and `peer` for
// each size; collective: ranks other than the two wait in a barrier.
std::vector<double> mpi_one_way_ns(const MpiContext& mpi, const HostClock& clock, int peer,
                                   const std::vector<std::uint64_t>& sizes, int reps);

}  // namespace hetprobe
