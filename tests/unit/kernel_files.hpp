// Shared by the unit tests of what reads sysfs and cgroupfs: files written
// into a fake tree as the kernel shows them.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace hetprobe {

// Writes `files` (name -> content) into `dir`, creating it; each content is
// one line, as the kernel writes it.
inline void write_kernel_files(const std::filesystem::path& dir, const std::map<std::string, std::string>& files) {
  std::filesystem::create_directories(dir);
  for (const auto& [name, content] : files) std::ofstream(dir / name) << content << "\n";
}

}  // namespace hetprobe
