#include "base/cpu_name.hpp"

#include <cstdlib>
#include <fstream>

namespace hetprobe {

namespace {
std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}
}  // namespace

std::string host_cpu_name() {
  if (const char* given = std::getenv("HETPROBE_HOST_CPU_NAME"); given != nullptr && *given != '\0') return given;
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      if (std::string name = trimmed(line.substr(colon + 1)); !name.empty()) return name;
    }
  return "unknown CPU";
}

}  // namespace hetprobe
