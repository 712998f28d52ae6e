#include "bench/core/numa_of.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace hetprobe {

std::optional<int> numa_node_of(const void* address) {
#ifdef SYS_move_pages
  const auto page_size = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  void* pages[1] = {reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(address) & ~(page_size - 1))};
  int status[1] = {-1};
  // pid 0: this process; nodes null: query, nothing moves. status[0] is the
  // page's node, or a negative errno (-ENOENT: not present, -EFAULT: unmapped).
  if (syscall(SYS_move_pages, 0, 1UL, pages, nullptr, status, 0) != 0) return std::nullopt;
  if (status[0] < 0) return std::nullopt;
  return status[0];
#else
  (void)address;
  return std::nullopt;
#endif
}

}  // namespace hetprobe
