// Small kernel files (sysfs attributes, cgroup and /proc files), read with a
// bound: a file is read only when it is a regular file, it is opened without
// blocking (a FIFO in a test tree would block open(2) for ever), and only its
// first `max_bytes` are read (a device such as /dev/zero never ends).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace hetprobe {

// The sysfs root: HETPROBE_SYSFS_ROOT where set (a test option: a directory
// standing in for /sys, cgroups under its fs/cgroup too), else "/sys".
std::string sysfs_root();
// Whether HETPROBE_SYSFS_ROOT names a root.
bool sysfs_root_overridden();

// Sysfs attributes fit a page.
constexpr std::size_t kSysfsAttributeBytes = 4096;

// The first `max_bytes` of `path`; none when it is missing, not a regular
// file or cannot be read, with `problem` (when given) saying which:
// "is a FIFO, not a regular file", "cannot be opened: Permission denied".
std::optional<std::string> read_small_file(const std::filesystem::path& path,
                                           std::size_t max_bytes = kSysfsAttributeBytes,
                                           std::string* problem = nullptr);

// The first line of read_small_file(path), without trailing blanks and "\r".
std::optional<std::string> read_first_line(const std::filesystem::path& path, std::string* problem = nullptr);

}  // namespace hetprobe
