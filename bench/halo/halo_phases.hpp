// Where a halo iteration's time goes, for its records: each message's rate
// and staging copy, and the critical path of each iteration (the phases
// hetprobe.data.halo_phases shows). Times in host-clock ns from the iteration's start.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "bench/core/results.hpp"
#include "bench/halo/halo.hpp"

namespace hetprobe {

// GB/s (1e9 B/s) of `bytes` moved in `ns`; null when ns is not above 0.
Json gbs_json(std::uint64_t bytes, double ns);

// memcpy staging: per message, the median over the timed iterations of the
// end of its copy minus the end of what it waited for (a send's copy to host
// memory: its pack's end, so any wait before the copy starts counts too; a
// receive's copy to device memory: the receive's completion). Empty for pinned staging.
struct HaloCopyMedians {
  std::vector<double> send_ns, recv_ns;
};
HaloCopyMedians copy_medians(const HaloRun& run);

// One iteration's critical path: when packing started (the first pack) and
// ended (the last), the last send posted, when the last of the largest
// receives arrived and when its unpack started, when the last unpack ended,
// the mean unpack time of the largest receives, and with memcpy staging when
// the last receive's copy to device memory ended. A phase without messages
// (or without copies) is empty.
struct HaloCriticalPath {
  std::optional<double> total, pack_start, pack_end, last_send, largest_received, largest_unpack_start, unpack_end,
      largest_unpack, last_recv_copy_end;
};
HaloCriticalPath critical_path(const HaloIteration& it, const HaloLayout& layout);

// The messages of `bytes` at least this are a stage's long ones, whose rate
// is held to the link's (issue 16: 64 KiB).
inline constexpr std::uint64_t kHaloLongMessageBytes = 64 * 1024;

// A stage's long messages while any of them moved: per iteration, the union
// of their [start, end) intervals (pack or unpack), so time in which several
// overlap counts once (they share the link, so each one's own rate is a share
// of it) and time in which none moved (an unpack waiting for MPI) not at all.
// Their bytes over its median is the stage's rate. Empty without long messages.
struct HaloBusy {
  std::size_t messages = 0;
  std::uint64_t bytes = 0;
  double busy_ns_median = 0;
};
// A stage's per-message interval: a kernel's (pack, unpack: device stamps) or
// memcpy staging's copies (copy_to_host: copy_start_ns to copy_end_ns;
// copy_to_device: recv_ns, when the copy starts, to recv_copy_end_ns).
enum class HaloSpan { pack, unpack, copy_to_host, copy_to_device };
std::optional<HaloBusy> busy_time(const HaloRun& run, const std::vector<HaloMessage>& msgs, HaloSpan span,
                                  std::uint64_t min_bytes = kHaloLongMessageBytes);
// {min_bytes, messages, bytes, busy_ns_median, gbs_median}, or null.
Json to_json(const std::optional<HaloBusy>& busy, std::uint64_t min_bytes = kHaloLongMessageBytes);

// {phase: ns or null}, the records' critical_path_ns.
Json to_json(const HaloCriticalPath& path);
// {phase: the median over `paths`, or null where none has the phase}.
Json median_json(const std::vector<HaloCriticalPath>& paths);

}  // namespace hetprobe
