#include "base/interrupt.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include "base/errors.hpp"
#include "base/stop_request.hpp"

namespace hetprobe {

namespace {
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) {
  g_signal = sig;
  request_stop();  // also stops the running writer and loads (their registered stop flags)
  std::signal(sig, SIG_DFL);
}
}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool interrupted() { return g_signal != 0 || stop_requested(); }
int interrupt_signal() { return g_signal; }

void throw_if_interrupted() {
  if (!interrupted()) return;
  const int sig = interrupt_signal();
  throw Error(ErrorKind::interrupted, sig ? "interrupted by signal " + std::to_string(sig) : "stop requested");
}

void sleep_unless_interrupted(double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (auto now = Clock::now(); now < until; now = Clock::now()) {
    throw_if_interrupted();
    std::this_thread::sleep_for(std::min<Clock::duration>(until - now, std::chrono::milliseconds(50)));
  }
  throw_if_interrupted();
}

}  // namespace hetprobe
