// Progress lines on stderr, one per finished item, with how far the run is
// and how long it has left at its rate so far:
//   [12/48] 1 MiB stacked SSB: median 3.1 us  elapsed 0:42  ETA 2:06
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace hetprobe::cli {

// "0:42", "12:05", "1:02:09".
inline std::string clock_text(double seconds) {
  const long long s = seconds > 0 ? static_cast<long long>(seconds + 0.5) : 0;
  char text[32];
  if (s >= 3600) std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
  return text;
}

class Progress {
 public:
  // `total` items, `already` of them done before this run (--resume): the
  // estimate uses only the rate of the items this run finishes.
  explicit Progress(std::size_t total, std::size_t already = 0) : total_(total), done_(already) {}

  // Counts one more item finished and returns its line (no newline).
  std::string finished(const std::string& label) {
    ++done_;
    ++measured_;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    std::string line = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] " + label + "  elapsed " +
                       clock_text(elapsed);
    if (done_ < total_)
      line += "  ETA " + clock_text(elapsed / static_cast<double>(measured_) * static_cast<double>(total_ - done_));
    return line;
  }

  // finished(), printed to stderr.
  void print(const std::string& label) { std::fprintf(stderr, "%s\n", finished(label).c_str()); }

  std::size_t done() const { return done_; }
  std::size_t total() const { return total_; }

 private:
  using Clock = std::chrono::steady_clock;
  std::size_t total_, done_;
  std::size_t measured_ = 0;
  Clock::time_point start_ = Clock::now();
};

}  // namespace hetprobe::cli
