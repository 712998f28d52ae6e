#include "base/stop_request.hpp"

#include <atomic>

namespace hetprobe {

namespace {
std::atomic<bool> g_stop{false};
std::atomic<unsigned long long*> g_flags[kMaxStopFlags];
static_assert(std::atomic<bool>::is_always_lock_free, "request_stop() runs in a signal handler");
static_assert(std::atomic<unsigned long long*>::is_always_lock_free, "request_stop() runs in a signal handler");
}  // namespace

void request_stop() noexcept {
  g_stop.store(true, std::memory_order_relaxed);
  for (auto& slot : g_flags)
    if (unsigned long long* flag = slot.load())
      std::atomic_ref<unsigned long long>(*flag).store(~0ull, std::memory_order_release);
}
bool stop_requested() noexcept { return g_stop.load(std::memory_order_relaxed); }
void clear_stop_request() noexcept { g_stop.store(false, std::memory_order_relaxed); }

bool register_stop_flag(unsigned long long* flag) noexcept {
  for (auto& slot : g_flags)
    if (slot.load() == flag) return true;
  for (auto& slot : g_flags) {
    unsigned long long* empty = nullptr;
    if (slot.compare_exchange_strong(empty, flag)) return true;
  }
  return false;
}

void unregister_stop_flag(unsigned long long* flag) noexcept {
  for (auto& slot : g_flags) {
    unsigned long long* mine = flag;
    if (slot.compare_exchange_strong(mine, nullptr)) return;
  }
}

}  // namespace hetprobe
