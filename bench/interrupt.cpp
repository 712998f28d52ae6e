#include "hetprobe/interrupt.hpp"

#include <csignal>

#include "hetprobe/device.hpp"
#include "hetprobe/load_engine.hpp"

namespace hetprobe {

namespace {
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) {
  g_signal = sig;
  stop_running_writer_from_signal();
  stop_running_loads_from_signal();
  std::signal(sig, SIG_DFL);
}
}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool interrupted() { return g_signal != 0; }
int interrupt_signal() { return g_signal; }

}  // namespace hetprobe
