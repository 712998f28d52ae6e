#include "bench/core/cpu_conditions.hpp"

#include <sched.h>

#include <charconv>
#include <set>
#include <thread>

#include "base/echo_text.hpp"
#include "base/small_file.hpp"

namespace hetprobe {

namespace {

namespace fs = std::filesystem;

// The file's first line without trailing whitespace, as valid UTF-8 (it goes
// into the results header); none if it cannot be read. Bounded: the root may
// be a test's tree (HETPROBE_SYSFS_ROOT) holding a FIFO or a device.
std::optional<std::string> read_line(const fs::path& path) {
  const auto line = read_first_line(path);
  if (!line) return std::nullopt;
  return valid_utf8(*line);
}

std::optional<long> read_long(const fs::path& path) {
  const auto text = read_line(path);
  if (!text) return std::nullopt;
  long value = 0;
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> read_mhz(const fs::path& khz_file) {
  const auto khz = read_long(khz_file);
  return khz ? std::optional<double>(static_cast<double>(*khz) / 1000.0) : std::nullopt;
}

// "always [madvise] never" -> "madvise"; a line without brackets as it is.
std::optional<std::string> selected(const fs::path& path) {
  const auto line = read_line(path);
  if (!line) return std::nullopt;
  const auto open = line->find('['), close = line->find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return line;
  return line->substr(open + 1, close - open - 1);
}

template <typename T>
Json or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

}  // namespace

CpuConditions read_cpu_conditions(int cpu, const fs::path& sysfs_root) {
  CpuConditions c;
  c.cpu = cpu;
  const fs::path dir = sysfs_root / "devices/system/cpu" / ("cpu" + std::to_string(cpu));
  c.governor = read_line(dir / "cpufreq/scaling_governor");
  c.min_mhz = read_mhz(dir / "cpufreq/scaling_min_freq");
  c.max_mhz = read_mhz(dir / "cpufreq/scaling_max_freq");
  c.cur_mhz = read_mhz(dir / "cpufreq/scaling_cur_freq");
  std::error_code ec;
  for (int k = 0;; ++k) {  // state0, state1, ...: the kernel numbers them from 0 without gaps
    const fs::path state = dir / "cpuidle" / ("state" + std::to_string(k));
    if (!fs::is_directory(state, ec)) break;
    if (!c.idle_states) c.idle_states.emplace();
    if (read_long(state / "disable").value_or(0) != 0) continue;
    c.idle_states->push_back({read_line(state / "name").value_or(state.filename().string()),
                              read_long(state / "latency")});
  }
  return c;
}

TransparentHugepages read_transparent_hugepages(const fs::path& sysfs_root) {
  const fs::path dir = sysfs_root / "kernel/mm/transparent_hugepage";
  return {selected(dir / "enabled"), selected(dir / "defrag")};
}

std::vector<int> sample_cpus_ran_on(int samples, std::chrono::microseconds gap) {
  std::set<int> seen;
  for (int i = 0; i < samples; ++i) {
    if (i > 0) std::this_thread::sleep_for(gap);
    const int cpu = sched_getcpu();
    if (cpu >= 0) seen.insert(cpu);
  }
  return {seen.begin(), seen.end()};
}

Json cpu_conditions_json(const CpuConditions& c) {
  Json idle = nullptr;
  if (c.idle_states) {
    idle = Json::array();
    for (const IdleState& s : *c.idle_states) idle.push_back({{"name", s.name}, {"latency_us", or_null(s.latency_us)}});
  }
  return Json{{"cpu", c.cpu},
              {"governor", or_null(c.governor)},
              {"min_mhz", or_null(c.min_mhz)},
              {"max_mhz", or_null(c.max_mhz)},
              {"cur_mhz", or_null(c.cur_mhz)},
              {"idle_states", idle}};
}

Json transparent_hugepages_json(const TransparentHugepages& t) {
  return Json{{"enabled", or_null(t.enabled)}, {"defrag", or_null(t.defrag)}};
}

}  // namespace hetprobe
