#include "base/number_text.hpp"

#include <cmath>
#include <cstdio>

namespace hetprobe {
namespace {

// "%.0f" of x with a comma between each group of three digits.
std::string grouped_whole(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%.0f", x);
  const std::string digits = text;
  const std::size_t sign = digits[0] == '-' ? 1 : 0;
  std::string out = digits.substr(0, sign);
  for (std::size_t i = sign; i < digits.size(); ++i) {
    if (i > sign && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string bound_text(double x) {
  if (std::fabs(x) >= 100) return grouped_whole(x);
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", x);
  return text;
}

}  // namespace

std::string number_text(double x) {
  if (std::fabs(x) >= 1e4) return grouped_whole(x);
  char text[64];
  std::snprintf(text, sizeof text, "%.4g", x);
  return text;
}

std::string range_text(double low, double high) { return number_text(low) + "-" + number_text(high); }

std::string interval_text(const std::optional<Interval>& ci) {
  return ci ? bound_text(ci->low) + "-" + bound_text(ci->high) : "-";
}

}  // namespace hetprobe
