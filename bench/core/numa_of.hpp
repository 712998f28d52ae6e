// The NUMA node that holds a page, asked of the kernel (move_pages(2) in
// query mode, through syscall(): no libnuma). For records that say where a
// buffer lives: the run header's pinned buffer, later the interference
// probe's send buffer.
#pragma once

#include <optional>

namespace hetprobe {

// The NUMA node of the page holding `address`, or none when the page is not
// present (never touched, or swapped out), the address is not mapped, or the
// kernel refuses the call (no NUMA support, a seccomp filter). Does not touch
// the page; never throws. Thread-safe.
std::optional<int> numa_node_of(const void* address);

}  // namespace hetprobe
