// The node model's prediction of a halo exchange's communication, checked
// against what the halo run measured (issue 35 part 3).
//
// Per timed iteration of a two-rank halo run (both ranks' timelines, every
// iteration kept): the bytes of every message of both directions go through
// one MPI path between the two ranks, one message after the other in the
// order they were sent (Open MPI's shared-memory transport copies each
// message on both ranks' CPUs, whichever way it goes), while each message's
// latency runs from its own send, beside the transfers before it (LogGP's
// latency and gap): message i ends at
//   done_i = max(send_i + alpha * s_i, done_{i-1}) + beta * n_i * s_i,
//   s_i = s(n_i, T),
// a lone message taking t(n_i) * s_i as Eq. 2 says. Its receiver sees it at
// max(done_i, the receiver's last send): every variant posts all its sends
// before it tests for a receive (Algorithm 1; the notify variants' phase A
// before phase B). t and s are the node
// model's (node_model.hpp) and T the GPU traffic the
// run itself measured in that iteration: the bytes of every pack and unpack
// (both ranks) that overlapped the measured communication window, over it.
// The communication time is the last receive seen less the first send,
// measured (the ranks' receive stamps) and predicted.
#pragma once

#include <string>
#include <vector>

#include "bench/core/results.hpp"
#include "bench/core/table.hpp"
#include "bench/model/node_model.hpp"

namespace hetprobe {

struct MessageKindPrediction {
  std::string kind;  // the layout's: "face", "edge", "vertex"
  std::uint64_t bytes = 0;
  double measured_ns_median = 0, predicted_ns_median = 0;  // send to receive, per message
};

struct HaloPrediction {
  std::string layout, setup, variant;
  int cube = 0;
  std::vector<double> measured_ns, predicted_ns, traffic_gbs;  // per iteration
  std::vector<MessageKindPrediction> kinds;
  // per iteration: predicted / measured - 1; its median and 95% interval
  double error_median = 0;
  std::optional<Interval> error_ci95;
};

// Every setup of every layout in `halo` (a halo results file of two ranks,
// --timeline all). A usage Error for a layout the model cannot place: more
// than two ranks, a rank's messages to itself or a third, timelines not kept
// for every iteration, or the ranks' records not matching.
std::vector<HaloPrediction> predict_halo(const NodeModel& model, const ResultsFile& halo);

Json to_json(const HaloPrediction& p);

// The tables of a model: its parameters (model_fit) and, per halo setup,
// measured against predicted (model_prediction).
Report model_report(const NodeModel& model, const Json& sources, const std::vector<HaloPrediction>& predictions);

}  // namespace hetprobe
