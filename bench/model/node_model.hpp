// A model of the node's MPI path under GPU traffic, fitted from one
// `hetprobe characterize` run (issue 35 part 3; the paper's Eq. 2, with a
// slowdown term this node measured):
//   t(n)    = alpha + beta * n          the idle send of n bytes (SSB): Eq. 2
//                                       over every size, and, for a
//                                       prediction, the line through the two
//                                       measured sizes around n on n's side
//                                       of the eager limit (a segment),
//   s(n, T) = 1 + gamma(n) * T          the loaded send over the idle one while
//                                       GPUs move T GB/s into pinned host memory,
// gamma fitted at each measured size and interpolated in log(n) between them
// (held at the nearest size outside). Every parameter is fitted once per round
// of the interference run, so each has the median and 95% interval of its
// rounds' fits (docs/metrics.md, "The node model").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/stats.hpp"
#include "bench/core/results.hpp"

namespace hetprobe {

// One parameter: the median of its rounds' fits and their 95% interval
// (median_ci95: 6 rounds or more), and why no send can have the value, where
// none can (a negative latency, a time that falls with size, a slowdown the
// measured points do not span): it is shown marked, never as a plain number.
struct FittedValue {
  double median = 0;
  std::optional<Interval> ci95;
  std::size_t rounds = 0;  // rounds that gave a fit
  std::optional<std::string> implausible;
};

struct SizeSlowdown {
  std::uint64_t bytes = 0;
  FittedValue gamma_per_gbs;   // the slowdown's slope, per GB/s of GPU traffic
  std::size_t points = 0;      // loaded points at this size
  double traffic_max_gbs = 0;  // the most traffic a point of this size moved: the fit's span
};

// The idle send between two measured sizes on one side of the MPI path's
// eager limit: per round, the line through their two times. A message is
// sent by one protocol (eager, or rendezvous with its handshake), and its
// bytes cost what they cost at its size (caches): one line over 1 KiB to
// 16 MiB fits neither (on two H200s it over-predicted halo exchanges of 60 KB
// to 960 KB messages by 14-42%).
struct SendSegment {
  std::uint64_t from_bytes = 0, to_bytes = 0;
  bool rendezvous = false;  // both sizes at or above the eager limit
  FittedValue alpha_s, beta_s_per_byte;
};

struct SendLine {
  double alpha_s = 0, beta_s_per_byte = 0;
};

struct NodeModel {
  FittedValue alpha_s, beta_s_per_byte;            // Eq. 2 over every size
  std::optional<std::uint64_t> eager_limit_bytes;  // the MPI path's, where the records say
  std::vector<SendSegment> segments;               // eager ones, then rendezvous ones; each ascending
  std::vector<SizeSlowdown> slowdown;              // ascending bytes; empty: no loaded points
  // The line for a message of `bytes`: the segment around it on its side of
  // the eager limit, else that side's nearest; Eq. 2 where that side has none.
  SendLine send_line(double bytes) const;
  double send_time_s(double bytes) const;                      // t(n) on send_line, the medians
  double slowdown_at(double bytes, double traffic_gbs) const;  // s(n, T), the medians
};

// What the fit reads of an interference run (model_inputs.hpp reads it from
// the records): each SSB point's round medians, and each loaded point's size,
// traffic during the send and paired round ratios to SSB (NaN: no value that
// round).
struct IdleSeries {
  std::uint64_t bytes = 0;
  std::vector<double> round_medians_ns;
};

struct LoadedSeries {
  std::uint64_t bytes = 0;
  double traffic_gbs = 0;
  std::vector<double> round_ratios;
};

// Per round: alpha and beta from the idle series (fit_postal, relative
// errors), and each segment's line (the rounds' medians of series of one
// size pooled); gamma at each size from its loaded points (least squares
// through the origin of ratio - 1 against T). A usage Error where the idle
// series give fewer than 2 sizes in any round.
NodeModel fit_node_model(const std::vector<IdleSeries>& idle, const std::vector<LoadedSeries>& loaded,
                         std::optional<std::uint64_t> eager_limit_bytes = std::nullopt);

Json to_json(const FittedValue& v);
Json to_json(const NodeModel& m);

}  // namespace hetprobe
