// The host side of every flag wait: spin on a condition, bounded in time.
#pragma once

#include <chrono>
#include <string>

#include "hetprobe/errors.hpp"

namespace hetprobe {

// Spins until pred() holds. Throws a timeout Error naming `what` after
// `timeout_s`. The clock is read every 4096 spins only: the flag load is the
// latency being measured.
template <class Pred>
inline void spin_host(Pred pred, double timeout_s, const char* what) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (unsigned k = 1; !pred(); ++k)
    if ((k & 0xFFF) == 0 && Clock::now() > deadline)
      throw Error(ErrorKind::timeout, std::string(what) + " did not happen within " + std::to_string(timeout_s) + " s");
}

}  // namespace hetprobe
