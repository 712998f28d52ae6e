#include "probes/device/device.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "base/errors.hpp"
#include "probes/device/device_names.hpp"
#include "probes/launch/launch_engine.hpp"

namespace hetprobe {

const char* to_string(Access access) { return kAccessNames.name(access); }

PinnedBuffer::PinnedBuffer(std::byte* host, std::byte* device, std::size_t bytes,
                           std::function<void(std::byte*)> release)
    : host_(host), device_(device), bytes_(bytes), release_(std::move(release)) {}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept { *this = std::move(other); }

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    if ((host_ || device_) && release_) release_(host_ ? host_ : device_);
    host_ = std::exchange(other.host_, nullptr);
    device_ = std::exchange(other.device_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    release_ = std::move(other.release_);
  }
  return *this;
}

PinnedBuffer::~PinnedBuffer() {
  if ((host_ || device_) && release_) release_(host_ ? host_ : device_);
}

const char* to_string(FlagPlacement placement) { return kFlagPlacementNames.name(placement); }
const char* to_string(HostCoherence coherence) { return kHostCoherenceNames.name(coherence); }
const char* to_string(LaunchMechanism m) { return kLaunchMechanismNames.name(m); }

PinnedBuffer Device::alloc_flags(FlagPlacement placement, HostCoherence coherence, std::size_t bytes) {
  if (coherence != HostCoherence::default_kind)
    throw unsupported(std::string(to_string(coherence)) + " host memory is a HIP allocation option; the " +
                      info().backend + " backend has none");
  if (placement != FlagPlacement::pinned)
    throw unsupported("the " + info().backend + " backend has no " + to_string(placement) + " memory");
  return alloc_pinned(bytes);
}

PinnedBuffer Device::alloc_device(std::size_t bytes) {
  return alloc_flags(FlagPlacement::device, HostCoherence::default_kind, bytes);
}

std::unique_ptr<LaunchEngine> Device::make_launch_engine() {
  throw unsupported("no kernel launches on the " + info().backend + " backend");
}

bool DeviceInfo::has_flag_placement(FlagPlacement p) const {
  return std::find(flag_placements.begin(), flag_placements.end(), p) != flag_placements.end();
}

TimerCalibration calibrate_timer_once(const std::string& backend, int ordinal,
                                      const std::function<TimerCalibration()>& measure) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, int>, TimerCalibration> done;
  const std::lock_guard lock(mutex);
  auto it = done.find({backend, ordinal});
  if (it == done.end()) it = done.emplace(std::pair{backend, ordinal}, measure()).first;
  return it->second;
}

}  // namespace hetprobe
