// The interference probe (paper 002 Sec. 4.3; DIGEST 4.1, 4.5): rank 0 times
// MPI_Send of a pinned buffer to rank 1 while GPU traffic runs in pinned host
// memory. In every layout but SSB a load runs through each visit of a point,
// so each send meets it at steady state:
//   kind    write, read, poll (every thread polls one flag), copy-d2h, copy-h2d
//   layout  where it lands: PSB the send buffer, PCB a buffer right after it,
//           P2AB one 2 MiB after it (on the sender's GPU; other GPUs load a
//           buffer of their own, near them)
//   access  stream (one block) or stacked (every co-resident block), for the
//           kinds the GPU's threads make
//   rate    full, or paced to a fraction of the full rate or to GB/s
//   gpus    how many GPUs load at once, the sender's first
// A size's points are measured in rounds: each round visits every point of
// the size once, in a seeded shuffled order, and a point's ratio to SSB is
// paired within its round (docs/metrics.md). Each record carries the traffic
// measured inside the timed sends. --paper is the paper's own configuration:
// its writer (the payload, then the same kernel writes on, grid-synchronised
// between passes) into a buffer the size of the message.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/enum_table.hpp"
#include "bench/core/message_path.hpp"
#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"
#include "bench/core/send_mode.hpp"
#include "bench/interference/layout.hpp"
#include "bench/interference/send_gap.hpp"
#include "bench/load/load_options.hpp"
#include "bench/load/load_set.hpp"
#include "bench/protocols/clock_fit.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"

namespace hetprobe {

enum class WriterSide { sender, receiver, both };
inline constexpr EnumTable<WriterSide, 3> kWriterSideNames{"writer side",
                                                           {{{WriterSide::sender, "sender"},
                                                             {WriterSide::receiver, "receiver"},
                                                             {WriterSide::both, "both"}}}};
inline const char* to_string(WriterSide side) { return kWriterSideNames.name(side); }

// Which received payloads the receiver checks. By default each visit's last
// timed send: between the timed sends the receiver only waits, as a bare
// receive does. Reading each 16 MiB payload between sends raised the slowdown
// under two GPUs' loads by 8-25% on two H200s (notebooks/data/h200x2-kgpu).
// --check-every checks every one; --no-check none.
enum class PayloadCheck { last_of_visit, every_send, none };
inline constexpr EnumTable<PayloadCheck, 3> kPayloadCheckNames{"payload check",
                                                               {{{PayloadCheck::last_of_visit, "last of each visit"},
                                                                 {PayloadCheck::every_send, "every send"},
                                                                 {PayloadCheck::none, "none"}}}};
inline const char* to_string(PayloadCheck check) { return kPayloadCheckNames.name(check); }

struct InterferenceConfig {
  std::vector<std::uint64_t> sizes;  // message sizes, bytes
  std::vector<Layout> layouts;
  std::vector<Access> access;
  SendMode send_mode = SendMode::send;
  WriterSide writer = WriterSide::sender;  // the side(s) whose GPU writes the payload and loads
  bool paper = false;                      // the paper's writer instead of the loads
  std::vector<LoadKind> loads = {LoadKind::write};
  LoadBytes load_bytes;  // the PCB/P2AB buffer and the other GPUs' buffers
  std::vector<LoadRate> rates;
  std::vector<int> gpu_counts = {1};
  std::vector<int> load_devices;  // the order GPUs join a load (the sender's first)
  int rounds = 10;                // visits of every point of a size, each round in a shuffled order
  int reps = 5;                   // timed sends per visit
  int warmup = 1;                 // untimed sends per visit, first
  std::uint64_t seed = 1;         // the rounds' orders (the CLI draws one unless --seed is given)
  SendGap gap;                    // what the sender does before each timed send
  double timeout_s = 30;          // bound of every wait, host and device
  PayloadCheck payload_check = PayloadCheck::last_of_visit;
  bool host_stream = true;  // measure the host's memory bandwidth first (rank 0)

  // Bytes of the load's own buffer for a message size (PCB/P2AB, other GPUs).
  std::uint64_t load_bytes_for(std::uint64_t message_bytes) const;
  int max_gpus() const;
  Json to_json() const;
};

// One point of the sweep. The SSB baseline has load none, 0 GPUs, no rate.
// A point is found again by its values: its rate by value, not by how the
// rate was written (LoadRate).
struct PointKey {
  std::uint64_t size;
  Layout layout;
  Access access;
  LoadKind load = LoadKind::none;
  int gpus = 0;
  std::optional<LoadRate> rate;  // the load's; none for SSB
  auto operator<=>(const PointKey&) const = default;
};
std::vector<PointKey> sweep_points(const InterferenceConfig& config);
// Throws a usage Error unless rounds and reps are at least 1, warm-up at
// least 0, and a point's samples fit one MPI message.
void check_sampling(const InterferenceConfig& config);
// Who writes a point's payload into the send buffer before each send: the
// paper's writer kernel (--paper), or else the sender's CPU, the same for the
// baseline and every load, so that every send starts from the same state.
enum class PayloadWriter { kernel, cpu };
inline constexpr EnumTable<PayloadWriter, 2> kPayloadWriterNames{"payload writer",
                                                                 {{{PayloadWriter::kernel, "kernel"},
                                                                   {PayloadWriter::cpu, "cpu"}}}};
inline const char* to_string(PayloadWriter writer) { return kPayloadWriterNames.name(writer); }
PayloadWriter payload_writer(const InterferenceConfig& config);
// Whether rank `rank` (0 sends, 1 receives) has the GPU that writes and loads.
bool gpu_on_rank(WriterSide side, int rank);
// Key of a point record read back from a results file.
PointKey point_key_of(const Json& record);
std::string describe(const PointKey& key);

// What one rank saw in one sample.
struct SideSample {
  double send_ns = 0;                         // sender: the timed send
  double wait_ns = 0;                         // receiver: its timed MPI_Wait
  double empty_region_ns = 0;                 // sender: an empty timed region just before it
  double gap_ns = 0;                          // sender: the time its --gap took, just before it
  std::uint64_t passes_during_send = 0;       // paper's writer on the sender: passes completed while timing
  std::uint64_t writer_passes = 0;            // paper's writer: post-ready passes in all
  double writer_post_s = 0;                   // device-timed: ready flag to writer exit
  double writer_pre_s = 0;                    // device-timed: start to ready flag (the payload)
  std::uint64_t mismatched_bytes = 0;         // receiver: payload bytes not as sent (where checked)
  bool payload_checked = false;               // receiver: whether it checked this sample's payload
  double send_start_host_ns = 0;              // the host clock when the timed call began
  double send_end_host_ns = 0;                // ... and when it returned
  std::uint64_t writer_ticks[3] = {0, 0, 0};  // the paper writer's start, ready flag and end, device timer
  // Bytes each load GPU of this rank moved inside the timed call; NaN when unknown.
  double load_bytes[kMaxLoadGpus] = {};
  int round = 0;           // the round of the visit that took it
  int visit_position = 0;  // its place among the visit's timed sends, from 0
};

struct PointData {
  PointKey key;
  LayoutPlan plan;
  std::vector<SideSample> sender, receiver;  // timed samples only, round after round (cold with a --gap)
  // With a --gap: the sender's warm sends (no gap), timed in the same visits
  // as its cold ones, interleaved (warm_cold_order); empty without a gap.
  std::vector<SideSample> warm_sender;
  std::vector<int> positions;  // per round: where in the round's order the point was visited
  // The sender's device timer on its host clock, fitted from ping-pong syncs
  // just before and after the point; empty when the sender has no writer.
  std::optional<ClockFit> sender_clock;
  // Per side: each load GPU's placement, shape, full and target rates, and
  // what it did over the point (rate, clock fit); null without loads.
  Json sender_load, receiver_load;
  WriterShape writer_shape;  // the writer's launch shape for the point's access mode
};

// With a --gap, which of a visit's 2 x reps timed sends are cold (true: the
// gap before it) and which warm: reps of each, in a shuffled order seeded by
// the run's seed, the size, the round and the point (the same on both ranks,
// replayed by --seed).
std::vector<bool> warm_cold_order(std::uint64_t seed, std::uint64_t size, int round, std::size_t point, int reps);

// How long the loads run before the first send of a visit: long enough for
// the GPU's caches and queues to fill, so the sends meet the steady traffic.
inline constexpr double kLoadSettleSeconds = 0.005;

// Receives each finished point on rank 0, in sweep order, once every round of
// its size is done, with the SSB point of its size and access (null where the
// sweep has none, and for SSB itself).
using PointSink = std::function<void(const PointData&, const PointData* ssb)>;

// Pinned bytes the sweep needs: one allocation holds every point's buffers.
std::uint64_t interference_allocation_bytes(const InterferenceConfig& config);

// Runs every size not wholly in `done` on both ranks (collective over mpi.comm,
// which must have exactly 2 ranks) in `memory` (interference_allocation_bytes
// large). `loads`: the GPUs this rank loads (null when it loads none). `sink`
// is called on rank 0 only, for the points not in `done`. Checks
// interrupted() between samples.
void run_interference(const InterferenceConfig& config, Device& device, PinnedBuffer& memory, LoadSet* loads,
                      const MpiContext& mpi, const HostClock& clock, const std::set<PointKey>& done,
                      const PointSink& sink);

// The JSON record of a point (schema: pybindings/hetprobe/results.schema.json).
// `ssb`: the SSB point of the same size and access, measured in the same
// rounds (null: none); the ratio is paired round by round. `path`: how MPI
// carries the message from rank 0 to rank 1 (the point's mpi_path).
Json point_record(const InterferenceConfig& config, const PointData& point, const PointData* ssb,
                  const MessagePath& path);

}  // namespace hetprobe
