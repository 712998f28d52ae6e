// Host memory available now: MemAvailable, or less where a cgroup (a
// container, a batch job, systemd-run -p MemoryMax=) caps this process.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "base/small_file.hpp"
#include "probes/device/device.hpp"

namespace hetprobe {

namespace {

namespace fs = std::filesystem;

// /proc/meminfo, /proc/self/cgroup and a cgroup's memory.stat fit this.
constexpr std::size_t kProcFileBytes = 64 * 1024;

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  return text;
}

// The whole number after `key` on its line of `text` ("MemAvailable:" in
// /proc/meminfo, "inactive_file " in memory.stat), or after nothing (a file
// holding one number); none for "max" (no limit) or a file without it.
std::optional<std::uint64_t> number_after(const std::optional<std::string>& text, const std::string& key = "") {
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::istringstream fields(line.substr(key.size()));
    std::uint64_t n = 0;
    if (fields >> n) return n;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> file_number(const fs::path& path, const std::string& key = "") {
  return number_after(read_small_file(path, kProcFileBytes), key);
}

// A cgroup version's files: its limit, its use, and the reclaimable page
// cache its use counts (memory.stat), which an allocation can take back.
struct CgroupFiles {
  const char* limit;
  const char* usage;
  const char* inactive_file;
};
constexpr CgroupFiles kV2{"memory.max", "memory.current", "inactive_file "};
constexpr CgroupFiles kV1{"memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file "};

// This process's cgroup path in the hierarchy of /proc/self/cgroup whose
// controllers are `controllers` ("" for v2's "0::/path", "memory" for v1's).
std::optional<std::string> cgroup_path(const std::string& cgroups, const std::string& controllers) {
  std::istringstream lines(cgroups);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::istringstream list(line.substr(first + 1, second - first - 1));
    bool match = controllers.empty() && second == first + 1;
    for (std::string c; !controllers.empty() && std::getline(list, c, ',');) match = match || c == controllers;
    if (match) return line.substr(second + 1);
  }
  return std::nullopt;
}

// The least memory the cgroups from `path` up to the hierarchy's root at
// `base` leave this process (each's limit less its use; a parent's limit
// bounds its children), and the directory of the cgroup that leaves it. A
// directory that is not there is passed over: in a container the hierarchy
// is often mounted at the container's own cgroup, whatever the path says.
void tightest(const fs::path& base, const std::string& path, const CgroupFiles& files,
              std::optional<std::uint64_t>& available, std::string& where) {
  fs::path relative = fs::path(path).relative_path();
  for (;;) {
    const fs::path dir = relative.empty() ? base : base / relative;
    if (const auto limit = file_number(dir / files.limit)) {
      std::uint64_t used = file_number(dir / files.usage).value_or(0);
      used -= std::min(used, file_number(dir / "memory.stat", files.inactive_file).value_or(0));
      const std::uint64_t left = *limit > used ? *limit - used : 0;
      if (!available || left < *available) {
        available = left;
        where = dir.string();
      }
    }
    if (relative.empty()) return;
    relative = relative.parent_path();
  }
}

}  // namespace

HostMemory host_memory() {
  HostMemory m;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) m.installed = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  if (auto kib = file_number("/proc/meminfo", "MemAvailable:")) m.available = *kib * 1024;
  else m.available = m.installed;
  // cgroup v2 (at /sys/fs/cgroup, or /sys/fs/cgroup/unified beside v1) and
  // v1's memory controller; under HETPROBE_SYSFS_ROOT where that is set.
  const auto cgroups = read_small_file("/proc/self/cgroup", kProcFileBytes).value_or("");
  const fs::path root = fs::path(sysfs_root()) / "fs/cgroup";
  std::optional<std::uint64_t> available;
  std::string where;
  const std::string v2 = cgroup_path(cgroups, "").value_or("/");
  tightest(root, v2, kV2, available, where);
  tightest(root / "unified", v2, kV2, available, where);
  tightest(root / "memory", cgroup_path(cgroups, "memory").value_or("/"), kV1, available, where);
  if (available && *available < m.available) {
    m.available = *available;
    m.limited_by_cgroup = where;
  }
  return m;
}

void check_memory_available(std::uint64_t bytes, const std::string& what) {
  const HostMemory m = host_memory();
  if (bytes <= m.available || (m.available == 0 && m.limited_by_cgroup.empty())) return;  // 0: not known
  throw usage_error(what + " needs " + gib(bytes) + " of host memory; " + gib(m.available) + " is available now (" +
                    (m.limited_by_cgroup.empty()
                         ? "MemAvailable in /proc/meminfo"
                         : "the memory limit of cgroup " + m.limited_by_cgroup + " less its use") +
                    ", of " + gib(m.installed) + " installed): ask for less");
}

void check_pinnable(std::size_t bytes) { check_memory_available(bytes, "pinning " + std::to_string(bytes) + " bytes"); }

}  // namespace hetprobe
