#include "probes/device/device.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>

#include "bench/core/errors.hpp"
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

namespace {

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  return text;
}

// The first number in `path` after `key` (a /proc/meminfo line), or nothing.
std::optional<std::uint64_t> read_number(const char* path, const std::string& key = "") {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::istringstream fields(line.substr(key.size()));
    std::uint64_t n = 0;
    if (fields >> n) return n;
    return std::nullopt;  // "max": no limit
  }
  return std::nullopt;
}

}  // namespace

HostMemory host_memory() {
  HostMemory m;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) m.installed = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  if (auto kib = read_number("/proc/meminfo", "MemAvailable:")) m.available = *kib * 1024;
  else m.available = m.installed;
  // A container's or batch job's cgroup (v2) may allow less than the node has free.
  const auto limit = read_number("/sys/fs/cgroup/memory.max"), used = read_number("/sys/fs/cgroup/memory.current");
  if (limit && used && *limit > *used && *limit - *used < m.available) {
    m.available = *limit - *used;
    m.cgroup_limited = true;
  }
  return m;
}

void check_memory_available(std::uint64_t bytes, const std::string& what) {
  const HostMemory m = host_memory();
  if (m.available == 0 || bytes <= m.available) return;
  throw usage_error(what + " needs " + gib(bytes) + " of host memory; " + gib(m.available) + " is available now (" +
                    (m.cgroup_limited ? "this cgroup's limit less its use" : "MemAvailable in /proc/meminfo") +
                    ", of " + gib(m.installed) + " installed): ask for less");
}

void check_pinnable(std::size_t bytes) { check_memory_available(bytes, "pinning " + std::to_string(bytes) + " bytes"); }

}  // namespace hetprobe
