// The link between a GPU and host memory, measured once per halo run by the
// device's copy engine: the rate no stage of pinned staging can beat, since
// every byte it packs or unpacks crosses it (issue 35).
#pragma once

#include <optional>
#include <string>

#include "bench/core/results.hpp"

namespace hetprobe {

class Device;
class HostClock;

struct HaloLink {
  double to_host_gbs = 0, to_device_gbs = 0;  // GB/s = 1e9 B/s, median of kLinkCopies copies each
  // Within device memory (bytes copied, counted once): what bounds a stage of
  // memcpy staging's kernels, which pack into and unpack from device memory.
  double device_gbs = 0;
};

// The copy engine's rate each way, and within device memory, over buffers of
// kLinkBytes; nothing where the device has no copy engine (the host backend:
// no link between it and host memory). Throws if a copy outlasts timeout_s.
std::optional<HaloLink> measure_link(Device& device, const HostClock& clock, double timeout_s);

// A stage of pinned staging whose rate is above the link's by more than this
// factor moved data the stamps did not see: a timing error, not a rate. The
// factor leaves room for a kernel that beats the copy engine by a little.
inline constexpr double kHaloLinkMargin = 1.10;

// Whether `gbs` (a stage's rate) is above its bound's `bound_gbs`.
bool above_bound(double gbs, double bound_gbs);

// What bounds a stage's rate: the link each way (pinned staging's kernels,
// memcpy staging's copies: every byte crosses it) or device memory (memcpy
// staging's kernels).
enum class HaloBound { link_to_host, link_to_device, device_memory };

// The busy record's fields of a bound: {"link_gbs", "above_link"} or
// {"device_gbs", "above_device"}.
struct HaloBoundFields {
  const char *gbs, *above;
};
HaloBoundFields bound_fields(HaloBound bound);

// A stage's bound fields of its busy record: {"link_gbs", "above_link"} for
// the link, {"device_gbs", "above_device"} for device memory, and the other
// two null; nulls where nothing was measured or there is no rate.
Json bound_json(const std::optional<HaloLink>& link, HaloBound bound, const Json& stage_gbs);

// The record's warning for a stage whose `gbs` is above its bound's `bound_gbs`.
std::string bound_warning(const std::string& stage, HaloBound bound, double gbs, double bound_gbs);

}  // namespace hetprobe
