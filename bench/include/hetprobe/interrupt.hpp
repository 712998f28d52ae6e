// Ctrl-C / SIGTERM: the first signal stops the running device writer at once
// (from the handler) and marks the run interrupted, so the probe loop ends
// after the current sample and keeps every finished point; a second signal
// kills the process the default way.
#pragma once

namespace hetprobe {

void install_interrupt_handlers();
bool interrupted();
int interrupt_signal();  // the signal number received, 0 if none

}  // namespace hetprobe
