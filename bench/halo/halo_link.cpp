#include "bench/halo/halo_link.hpp"

#include <cstdio>
#include <vector>

#include "base/errors.hpp"
#include "base/stats.hpp"
#include "probes/copy/copy_engine.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"

namespace hetprobe {

namespace {

constexpr std::size_t kLinkBytes = 64ull << 20;  // milliseconds of copy: the start's microseconds do not count
constexpr int kLinkCopies = 5;

// `start` starts one copy of kLinkBytes on lane 0.
template <class Start>
double copy_gbs(CopyEngine& engine, const HostClock& clock, Start start, double timeout_s) {
  std::vector<double> gbs;
  for (int i = -1; i < kLinkCopies; ++i) {  // the first warms the engine and the pages
    const std::uint64_t t0 = clock.now();
    start();
    while (!engine.done(0))
      if (clock.to_ns(clock.now() - t0) > timeout_s * 1e9)
        throw Error(ErrorKind::timeout, "the copy engine's link copy of 64 MiB took over the --timeout");
    const double ns = clock.to_ns(clock.now() - t0);
    if (i >= 0 && ns > 0) gbs.push_back(static_cast<double>(kLinkBytes) / ns);
  }
  return summarize(gbs).median;
}

}  // namespace

std::optional<HaloLink> measure_link(Device& device, const HostClock& clock, double timeout_s) {
  if (!device.info().copy_engine) return std::nullopt;
  PinnedBuffer host = device.alloc_pinned(kLinkBytes), on_device = device.alloc_device(kLinkBytes),
               other = device.alloc_device(kLinkBytes);
  auto engine = device.make_copy_engine();
  std::byte *h = host.host(), *d = on_device.device(), *o = other.device();
  HaloLink link;
  link.to_host_gbs = copy_gbs(*engine, clock, [&] { engine->start_to_host(0, h, d, kLinkBytes); }, timeout_s);
  link.to_device_gbs = copy_gbs(*engine, clock, [&] { engine->start_to_device(0, d, h, kLinkBytes); }, timeout_s);
  link.device_gbs = copy_gbs(*engine, clock, [&] { engine->start_within_device(0, o, d, kLinkBytes); }, timeout_s);
  return link;
}

bool above_bound(double gbs, double bound_gbs) { return bound_gbs > 0 && gbs > bound_gbs * kHaloLinkMargin; }

HaloBoundFields bound_fields(HaloBound bound) {
  if (bound == HaloBound::device_memory) return {"device_gbs", "above_device"};
  return {"link_gbs", "above_link"};
}

Json bound_json(const std::optional<HaloLink>& link, HaloBound bound, const Json& stage_gbs) {
  Json out = {{"link_gbs", nullptr}, {"above_link", nullptr}, {"device_gbs", nullptr}, {"above_device", nullptr}};
  if (!link) return out;
  const double gbs = bound == HaloBound::device_memory  ? link->device_gbs
                     : bound == HaloBound::link_to_host ? link->to_host_gbs
                                                        : link->to_device_gbs;
  const HaloBoundFields f = bound_fields(bound);
  out[f.gbs] = gbs;
  out[f.above] = stage_gbs.is_number() ? Json(above_bound(stage_gbs.get<double>(), gbs)) : Json(nullptr);
  return out;
}

std::string bound_warning(const std::string& stage, HaloBound bound, double gbs, double bound_gbs) {
  char text[360];
  std::snprintf(text, sizeof text,
                "%s: the long messages moved %.1f GB/s, above the %s's %.1f GB/s (the copy engine's, measured in "
                "this run): the stamps missed part of the transfer; a timing error, not a rate",
                stage.c_str(), gbs, bound == HaloBound::device_memory ? "device memory" : "link", bound_gbs);
  return text;
}

}  // namespace hetprobe
