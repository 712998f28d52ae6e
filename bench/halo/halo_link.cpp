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

double copy_gbs(CopyEngine& engine, const HostClock& clock, bool to_host, std::byte* host, std::byte* device,
                double timeout_s) {
  std::vector<double> gbs;
  for (int i = -1; i < kLinkCopies; ++i) {  // the first warms the engine and the pages
    const std::uint64_t t0 = clock.now();
    if (to_host) engine.start_to_host(0, host, device, kLinkBytes);
    else engine.start_to_device(0, device, host, kLinkBytes);
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
  PinnedBuffer host = device.alloc_pinned(kLinkBytes), on_device = device.alloc_device(kLinkBytes);
  auto engine = device.make_copy_engine();
  HaloLink link;
  link.to_host_gbs = copy_gbs(*engine, clock, true, host.host(), on_device.device(), timeout_s);
  link.to_device_gbs = copy_gbs(*engine, clock, false, host.host(), on_device.device(), timeout_s);
  return link;
}

bool above_link(double gbs, double link_gbs) { return link_gbs > 0 && gbs > link_gbs * kHaloLinkMargin; }

Json link_json(const std::optional<HaloLink>& link, bool pack, bool pinned, const Json& stage_gbs) {
  if (!link || !pinned) return {{"link_gbs", nullptr}, {"above_link", nullptr}};
  const double link_gbs = pack ? link->to_host_gbs : link->to_device_gbs;
  return {{"link_gbs", link_gbs},
          {"above_link", stage_gbs.is_number() ? Json(above_link(stage_gbs.get<double>(), link_gbs)) : Json(nullptr)}};
}

std::string link_warning(const std::string& stage, double gbs, double link_gbs) {
  char text[320];
  std::snprintf(text, sizeof text,
                "%s: the long messages moved %.1f GB/s, above the link's %.1f GB/s (the copy engine's, measured in "
                "this run): the stamps missed part of the transfer; a timing error, not a rate",
                stage.c_str(), gbs, link_gbs);
  return text;
}

}  // namespace hetprobe
