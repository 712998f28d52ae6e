#include "bench/interference/link_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hetprobe {

std::vector<std::string> link_warnings(const MessagePath& path, const std::vector<BaselinePoint>& points) {
  if (!path.across_hosts || !path.link_gbs || !(*path.link_gbs > 0) || points.empty()) return {};
  double latency_ns = INFINITY;
  for (const BaselinePoint& p : points) latency_ns = std::min(latency_ns, p.median_ns);
  std::vector<std::string> out;
  for (const BaselinePoint& p : points) {
    const double predicted_ns = latency_ns + static_cast<double>(p.bytes) / *path.link_gbs;  // B / (GB/s) = ns
    if (!(p.median_ns > kFarAboveLink * predicted_ns)) continue;
    char text[640];
    std::snprintf(text, sizeof text,
                  "warning (%s): median %.4g us is %.0fx what the link predicts (%.4g us: the smallest baseline "
                  "median, %.4g us, plus the message at %.3g GB/s, %s-%s's nominal speed)%s; "
                  "docs/cross-node.md says how to read it",
                  p.label.c_str(), p.median_ns / 1e3, p.median_ns / predicted_ns, predicted_ns / 1e3, latency_ns / 1e3,
                  *path.link_gbs, path.sender_interface.value_or("?").c_str(),
                  path.receiver_interface.value_or("?").c_str(),
                  p.reaches_eager_limit
                      ? ": it reaches the eager limit, so the send waited for the receiver (rendezvous)"
                      : "");
    out.emplace_back(text);
  }
  return out;
}

}  // namespace hetprobe
