#include "bench/interference/send_gap.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "base/errors.hpp"
#include "bench/core/sizes.hpp"

namespace hetprobe {

namespace {

constexpr double kMaxGapSeconds = 10;

std::string seconds_label(double s) {
  char text[32];
  if (s >= 1) std::snprintf(text, sizeof text, "%gs", s);
  else if (s >= 1e-3) std::snprintf(text, sizeof text, "%gms", s * 1e3);
  else if (s >= 1e-6) std::snprintf(text, sizeof text, "%gus", s * 1e6);
  else std::snprintf(text, sizeof text, "%gns", s * 1e9);
  return text;
}

}  // namespace

std::string SendGap::label() const {
  switch (kind) {
    case GapKind::none: return "0";
    case GapKind::spin: return seconds_label(seconds);
    case GapKind::sweep: return "sweep:" + format_size(bytes);
  }
  return "0";
}

Json SendGap::to_json() const {
  return Json{{"kind", kGapKindNames.name(kind)},
              {"seconds", kind == GapKind::spin ? Json(seconds) : Json(nullptr)},
              {"bytes", kind == GapKind::sweep ? Json(bytes) : Json(nullptr)},
              {"label", label()}};
}

SendGap parse_send_gap(const std::string& text) {
  const std::string expected = "expected 0, a time such as 2ms or 500us (ns, us, ms, s; at most 10 s), or sweep:SIZE";
  if (text.rfind("sweep:", 0) == 0) {
    std::uint64_t bytes = 0;
    try {
      bytes = parse_size(text.substr(6));
    } catch (const Error&) {
      throw usage_error("gap '" + text + "': the sweep's size is not a size above 0 (" + expected + ")");
    }
    if (bytes < 64) throw usage_error("gap '" + text + "': a sweep takes at least 64 B");
    return {GapKind::sweep, 0, bytes};
  }
  double value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || !std::isfinite(value)) throw usage_error("gap '" + text + "': " + expected);
  const std::string unit(ptr, end);
  double scale = 0;
  if (unit == "ns") scale = 1e-9;
  else if (unit == "us") scale = 1e-6;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "s") scale = 1;
  else if (unit.empty() && value == 0) scale = 1;
  else throw usage_error("gap '" + text + "': " + expected);
  const double seconds = value * scale;
  if (seconds < 0) throw usage_error("gap '" + text + "': a gap cannot be negative");
  if (seconds > kMaxGapSeconds) throw usage_error("gap '" + text + "': at most 10 s");
  if (seconds == 0) return {};
  return {GapKind::spin, seconds, 0};
}

std::uint64_t spend_gap(const SendGap& gap, std::vector<std::uint64_t>& buffer) {
  if (gap.kind == GapKind::spin) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(gap.seconds);
    while (std::chrono::steady_clock::now() < until) {
    }
    return 0;
  }
  if (gap.kind != GapKind::sweep) return 0;
  const std::size_t words = static_cast<std::size_t>(gap.bytes / sizeof(std::uint64_t));
  if (buffer.size() < words) buffer.resize(words, 1);
  // Read and write every word once: each line is loaded and dirtied.
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < words; ++i) {
    acc += buffer[i];
    buffer[i] = acc;
  }
  return acc;
}

}  // namespace hetprobe
