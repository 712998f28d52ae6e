#include "topology/node_info.hpp"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>

#include "base/cpu_name.hpp"
#include "base/echo_text.hpp"
#include "base/small_file.hpp"

namespace hetprobe {

namespace {
std::string first_line(const char* path) { return valid_utf8(read_first_line(path).value_or("")); }

// "always [madvise] never" -> "madvise"
std::string bracketed(const std::string& s) {
  const auto open = s.find('['), close = s.find(']');
  return open == std::string::npos || close == std::string::npos ? s : s.substr(open + 1, close - open - 1);
}
}  // namespace

NodeInfo read_node_info() {
  NodeInfo n;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) n.hostname = host;
  n.cpu_model = host_cpu_name();
  n.online_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  n.page_size_bytes = sysconf(_SC_PAGESIZE);
  n.transparent_hugepages = bracketed(first_line("/sys/kernel/mm/transparent_hugepage/enabled"));
  utsname u{};
  if (uname(&u) == 0) n.kernel_release = u.release;
  return n;
}

std::string format_cpu_list(const std::vector<bool>& cpus) {
  const int count = static_cast<int>(cpus.size());
  std::string out;
  for (int i = 0; i < count;) {
    if (!cpus[i]) {
      ++i;
      continue;
    }
    int j = i;
    while (j + 1 < count && cpus[j + 1]) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(i);
    if (j > i) {
      out += '-';  // two appends: GCC 12 warns -Wrestrict (falsely) on "-" + std::string
      out += std::to_string(j);
    }
    i = j + 1;
  }
  return out;
}

std::string cpu_affinity_list() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "";
  std::vector<bool> flags(CPU_SETSIZE);
  for (int i = 0; i < CPU_SETSIZE; ++i) flags[static_cast<std::size_t>(i)] = CPU_ISSET(i, &set);
  return format_cpu_list(flags);
}

}  // namespace hetprobe
