// A process-wide request to stop: set once by a SIGINT/SIGTERM handler (or by
// the Python module on KeyboardInterrupt), read by every bounded wait, which
// then throws Error(ErrorKind::interrupted). Lock-free, so both functions are
// async-signal-safe.
#pragma once

namespace hetprobe {

void request_stop() noexcept;
bool stop_requested() noexcept;
// Forgets a request: for tests, and the Python module before its next probe.
void clear_stop_request() noexcept;

}  // namespace hetprobe
