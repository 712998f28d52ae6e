#include "bench/core/stop_request.hpp"

#include <atomic>

namespace hetprobe {

namespace {
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "request_stop() runs in a signal handler");
}  // namespace

void request_stop() noexcept { g_stop.store(true, std::memory_order_relaxed); }
bool stop_requested() noexcept { return g_stop.load(std::memory_order_relaxed); }
void clear_stop_request() noexcept { g_stop.store(false, std::memory_order_relaxed); }

}  // namespace hetprobe
