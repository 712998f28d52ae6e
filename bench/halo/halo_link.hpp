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
};

// The copy engine's rate each way over a buffer of kLinkBytes; nothing where
// the device has no copy engine (the host backend: no link between it and
// host memory). Throws if a copy outlasts timeout_s.
std::optional<HaloLink> measure_link(Device& device, const HostClock& clock, double timeout_s);

// A stage of pinned staging whose rate is above the link's by more than this
// factor moved data the stamps did not see: a timing error, not a rate. The
// factor leaves room for a kernel that beats the copy engine by a little.
inline constexpr double kHaloLinkMargin = 1.10;

// Whether `gbs` (a pinned stage's rate) is above the link's `link_gbs`.
bool above_link(double gbs, double link_gbs);

// The pack (to_host) or unpack (to_device) stage's link fields of a pinned
// setup's busy record: {"link_gbs", "above_link"}; nulls where nothing bounds
// it (no link measured, memcpy staging, no rate).
Json link_json(const std::optional<HaloLink>& link, bool pack, bool pinned, const Json& stage_gbs);

// The record's warning for a stage whose `gbs` is above the link's `link_gbs`.
std::string link_warning(const std::string& stage, double gbs, double link_gbs);

}  // namespace hetprobe
