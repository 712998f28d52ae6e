// The process-wide stop, and the one registry of what it stops at once: set by
// a SIGINT/SIGTERM handler (interrupt.hpp) or by the Python module on
// KeyboardInterrupt, read by every bounded wait, which then throws
// Error(ErrorKind::interrupted). A device task that runs until told (the
// interference writer, each load) registers its stop flag while it runs, and
// request_stop() writes ~0 into every registered flag, so the device stops
// without waiting for the host's unwinding. Lock-free throughout, so
// request_stop() is async-signal-safe.
#pragma once

namespace hetprobe {

void request_stop() noexcept;
bool stop_requested() noexcept;
// Forgets a request: for tests, and the Python module before its next probe.
void clear_stop_request() noexcept;

// While registered, `flag` (a device task's stop word, read by the device with
// acquire loads) is set to ~0 by request_stop(). At most kMaxStopFlags at once;
// beyond that a flag is not registered and returns false (the task still stops
// when the host unwinds). Registering a flag twice keeps one entry.
inline constexpr int kMaxStopFlags = 64;
bool register_stop_flag(unsigned long long* flag) noexcept;
void unregister_stop_flag(unsigned long long* flag) noexcept;

}  // namespace hetprobe
