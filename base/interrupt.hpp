// Ctrl-C / SIGTERM: the first signal requests a stop (stop_request.hpp), which
// stops the running device writer and loads at once from the handler, so
// every wait of the run ends within a second with Error(ErrorKind::interrupted)
// and the probe keeps every finished point; a second signal kills the process
// the default way.
#pragma once

namespace hetprobe {

void install_interrupt_handlers();
// True once a signal arrived or anything else requested a stop (request_stop()).
bool interrupted();
int interrupt_signal();  // the signal number received, 0 if none

// Throws Error(ErrorKind::interrupted) when interrupted().
void throw_if_interrupted();
// Sleeps `seconds`, waking at least every 50 ms to throw_if_interrupted().
void sleep_unless_interrupted(double seconds);

}  // namespace hetprobe
