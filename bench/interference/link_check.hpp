// A run across hosts, checked against its link: a baseline (SSB) point whose
// median is far above what the link predicts (the run's latency, its
// smallest baseline median, plus the message at the link's nominal rate) is
// warned of. Its time then went to the protocol (a rendezvous waiting on a
// receiver that does not run), not to bandwidth and not to the GPU's load:
// docs/cross-node.md says how to read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/core/message_path.hpp"

namespace hetprobe {

// A baseline median this many times what the link predicts warns.
inline constexpr double kFarAboveLink = 4;

// One baseline point of a run, as the check reads it.
struct BaselinePoint {
  std::string label;  // "64 KiB stream SSB -", as the table's warnings name a point
  std::uint64_t bytes = 0;
  double median_ns = 0;
  bool reaches_eager_limit = false;  // the table's protocol: rndv
};

// One warning a point far above the prediction; none without a link rate
// (one host, or a link the header does not know).
std::vector<std::string> link_warnings(const MessagePath& path, const std::vector<BaselinePoint>& points);

}  // namespace hetprobe
