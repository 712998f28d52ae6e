// The interference probe (paper 002 Sec. 4.3; DIGEST 4.1, 4.5): rank 0 times
// MPI_Send of a pinned buffer to rank 1 while a device writer hammers pinned
// host memory in one of four layouts and two access modes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "hetprobe/clock_fit.hpp"
#include "hetprobe/device.hpp"
#include "hetprobe/host_clock.hpp"
#include "hetprobe/layout.hpp"
#include "hetprobe/mpi_context.hpp"
#include "hetprobe/results.hpp"

namespace hetprobe {

enum class SendMode { send, isend };  // MPI_Send | MPI_Isend + MPI_Wait
enum class WriterSide { sender, receiver, both };
const char* to_string(SendMode mode);
const char* to_string(WriterSide side);

struct InterferenceConfig {
  std::vector<std::uint64_t> sizes;  // message sizes, bytes
  std::vector<Layout> layouts;
  std::vector<Access> access;
  SendMode send_mode = SendMode::send;
  WriterSide writer = WriterSide::sender;
  std::uint64_t secondary_bytes = 0;  // PCB/P2AB secondary buffer; 0: the message size
  int reps = 50;                      // timed samples per point
  int warmup = 5;                     // untimed full samples per point, first
  double timeout_s = 30;              // bound of every wait, host and device
  bool check_payload = true;

  std::uint64_t secondary_for(std::uint64_t message_bytes) const {
    return secondary_bytes ? secondary_bytes : message_bytes;
  }
  Json to_json() const;
};

// One point of the sweep.
struct PointKey {
  std::uint64_t size;
  Layout layout;
  Access access;
  auto operator<=>(const PointKey&) const = default;
};
std::vector<PointKey> sweep_points(const InterferenceConfig& config);
// Key of a point record read back from a results file.
PointKey point_key_of(const Json& record);

// What one rank saw in one sample.
struct SideSample {
  double send_ns = 0;                  // sender: timed send
  double empty_region_ns = 0;          // sender: an empty timed region just before it
  std::uint64_t passes_during_send = 0;  // sender with writer: passes completed while timing
  std::uint64_t writer_passes = 0;     // post-ready passes of the writer, in all
  double writer_post_s = 0;            // device-timed: ready flag to writer exit
  double writer_pre_s = 0;             // device-timed: start to ready flag
  std::uint64_t writer_timeouts = 0;
  std::uint64_t mismatched_bytes = 0;  // receiver: payload bytes not as sent
  double send_start_host_ns = 0;       // sender: the host clock when the timed send began
  std::uint64_t writer_ticks[3] = {0, 0, 0};  // the writer's start, ready flag and end, device timer
};

struct PointData {
  PointKey key;
  LayoutPlan plan;
  std::vector<SideSample> sender, receiver;  // timed samples only
  // The sender's device timer on its host clock, fitted from ping-pong syncs
  // just before and after the point; empty when the sender has no writer.
  std::optional<ClockFit> sender_clock;
};

// Receives each finished point on rank 0, in sweep order.
using PointSink = std::function<void(const PointData&)>;

// Pinned bytes the sweep needs: one allocation holds every point's buffers.
std::uint64_t interference_allocation_bytes(const InterferenceConfig& config);

// Runs every point not in `done` on both ranks (collective over mpi.comm,
// which must have exactly 2 ranks) in `memory` (interference_allocation_bytes
// large). `sink` is called on rank 0 only. Checks interrupted() between samples.
void run_interference(const InterferenceConfig& config, Device& device, PinnedBuffer& memory,
                      const MpiContext& mpi, const HostClock& clock,
                      const std::set<PointKey>& done, const PointSink& sink);

// The JSON record of a point (schema: docs/results-schema.md).
// `ssb_median_ns`: median send time of SSB at the same size and access, if known.
Json point_record(const InterferenceConfig& config, const PointData& point, const Device& device,
                  std::optional<double> ssb_median_ns);

}  // namespace hetprobe
