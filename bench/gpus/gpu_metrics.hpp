// The numbers a node's GPUs are compared by, each once: what it is, its unit
// and which way is worse. The gpus probe measures them, the node verdict
// (node_verdict.hpp) compares them, and Python reads this table through _core.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "base/enum_table.hpp"

namespace hetprobe {

enum class Worse { higher, lower };  // times: higher is worse; GB/s: lower

struct GpuMetric {
  const char* key;    // the records' field: "roundtrip_ns"
  const char* label;  // for a person: "CPU→GPU→CPU flag round trip"
  const char* unit;   // "ns", "GB/s"
  Worse worse;
  const char* column;  // its column in tables of every GPU (hetprobe.per_gpu), unit included
};

inline constexpr std::array<GpuMetric, 6> kGpuMetrics{{
    {"roundtrip_ns", "CPU→GPU→CPU flag round trip", "ns", Worse::higher, "round trip (ns)"},
    {"launch_sync_ns", "kernel launch + device synchronise", "ns", Worse::higher, "launch+sync (ns)"},
    {"write_gbs", "write kernel into pinned memory", "GB/s", Worse::lower, "write (GB/s)"},
    {"read_gbs", "read kernel from pinned memory", "GB/s", Worse::lower, "read (GB/s)"},
    {"copy_d2h_gbs", "async copy device→host", "GB/s", Worse::lower, "copy-d2h (GB/s)"},
    {"copy_h2d_gbs", "async copy host→device", "GB/s", Worse::lower, "copy-h2d (GB/s)"},
}};

// The metric of `key`, or none.
inline std::optional<GpuMetric> find_gpu_metric(std::string_view key) {
  for (const GpuMetric& m : kGpuMetrics)
    if (key == m.key) return m;
  return std::nullopt;
}

// A launch's rounds measure the node (measure), or confirm a GPU the node
// verdict flagged (remeasure: a later launch, so that a transient, a lucky
// allocation or one process's state cannot confirm itself).
enum class GpusPhase { measure, remeasure };
inline constexpr EnumTable<GpusPhase, 2> kGpusPhaseNames{"gpus phase",
                                                         {{{GpusPhase::measure, "measure"},
                                                           {GpusPhase::remeasure, "remeasure"}}}};
inline const char* to_string(GpusPhase p) { return kGpusPhaseNames.name(p); }

}  // namespace hetprobe
