#include "bench/core/sizes.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <utility>

#include "base/echo_text.hpp"
#include "base/errors.hpp"

namespace hetprobe {
namespace {

// Every size must convert safely to a signed 64-bit count (MPI, ptrdiff_t).
constexpr std::uint64_t kMaxSize = (std::uint64_t{1} << 63) - 1;
// A guard against "1:1TiB:+1" filling memory; no sweep needs this many points.
constexpr std::size_t kMaxListLength = 1'000'000;
// 10^18 still fits in 64 bits; the exact fractions of real units are shorter.
constexpr std::size_t kMaxFractionDigits = 18;

__extension__ typedef unsigned __int128 u128;  // exact products of two 64-bit values

constexpr std::uint64_t kKi = std::uint64_t{1} << 10;
constexpr std::array<std::pair<std::string_view, std::uint64_t>, 15> kUnits{{
    {"", 1},
    {"B", 1},
    {"KB", 1'000},
    {"kB", 1'000},
    {"MB", 1'000'000},
    {"GB", 1'000'000'000},
    {"TB", 1'000'000'000'000},
    {"KiB", kKi},
    {"MiB", kKi << 10},
    {"GiB", kKi << 20},
    {"TiB", kKi << 30},
    // Bare letters are binary, as in nccl-tests and OSU ("-e 128M").
    {"K", kKi},
    {"M", kKi << 10},
    {"G", kKi << 20},
    {"T", kKi << 30},
}};

// `context` is the enclosing list item, so a bad MIN, MAX or step in a range
// is reported together with the range it came from.
[[noreturn]] void fail(std::string_view what, std::string_view text, std::string_view why,
                       std::string_view context = {}) {
  std::string message = std::string(what) + " \"" + echo_text(text) + "\"";
  if (!context.empty()) message += " in \"" + echo_text(context) + "\"";
  throw usage_error(message + ": " + std::string(why));
}

std::size_t count_digits(std::string_view s, std::size_t from) {
  std::size_t i = from;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i - from;
}

std::uint64_t unit_bytes(std::string_view text, std::string_view suffix, std::string_view context) {
  for (const auto& [name, bytes] : kUnits) {
    if (name == suffix) return bytes;
  }
  fail("size", text, "unknown unit \"" + echo_text(suffix) + "\"", context);
}

// Bytes in 0.<fraction> units, which must be whole: "5" of KiB is 512.
u128 fraction_bytes(std::string_view fraction, std::uint64_t unit, std::string_view text, std::string_view context) {
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (fraction.empty()) return 0;
  if (fraction.size() > kMaxFractionDigits) {
    fail("size", text, "too many fractional digits", context);
  }
  std::uint64_t numerator = 0;
  std::from_chars(fraction.data(), fraction.data() + fraction.size(), numerator);
  u128 denominator = 1;
  for (std::size_t i = 0; i < fraction.size(); ++i) denominator *= 10;
  const u128 scaled = u128{numerator} * unit;
  if (scaled % denominator != 0) fail("size", text, "not a whole number of bytes", context);
  return scaled / denominator;
}

// Parses "<digits>[.<digits>]<unit>" exactly in integer arithmetic, so that
// "1.5KiB" is 1536 with no floating-point rounding. Zero is allowed here.
std::uint64_t parse_bytes(std::string_view text, std::string_view context) {
  if (text.empty()) fail("size", text, "empty", context);
  if (text.front() == '-') fail("size", text, "negative", context);
  const std::size_t int_len = count_digits(text, 0);
  if (int_len == 0) fail("size", text, "expected a number", context);
  std::size_t pos = int_len;
  std::string_view fraction;
  if (pos < text.size() && text[pos] == '.') {
    const std::size_t frac_len = count_digits(text, pos + 1);
    if (frac_len == 0) fail("size", text, "expected digits after '.'", context);
    fraction = text.substr(pos + 1, frac_len);
    pos += 1 + frac_len;
  }
  const std::uint64_t unit = unit_bytes(text, text.substr(pos), context);

  std::uint64_t whole = 0;  // digits only, so from_chars fails only on overflow
  if (std::from_chars(text.data(), text.data() + int_len, whole).ec != std::errc()) {
    fail("size", text, "too large", context);
  }
  // Both factors are < 2^64, so the 128-bit products cannot wrap.
  const u128 bytes = u128{whole} * unit + fraction_bytes(fraction, unit, text, context);
  if (bytes > kMaxSize) fail("size", text, "too large (must be below 2^63 bytes)", context);
  return static_cast<std::uint64_t>(bytes);
}

std::uint64_t parse_positive(std::string_view text, std::string_view context) {
  const std::uint64_t bytes = parse_bytes(text, context);
  if (bytes == 0) fail("size", text, "must be positive", context);
  return bytes;
}

// Parses "x<integer>" as a geometric factor >= 2.
std::uint64_t parse_factor(std::string_view range, std::string_view text) {
  const std::string_view digits = text.substr(1);
  std::uint64_t factor = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), factor);
  if (ec != std::errc() || end != digits.data() + digits.size() || factor < 2) {
    fail("range", range, "factor \"" + echo_text(text) + "\" must be an integer >= 2");
  }
  return factor;
}

void append_geometric(std::uint64_t min, std::uint64_t max, std::uint64_t factor, std::vector<std::uint64_t>& out) {
  for (std::uint64_t size = min;; size *= factor) {
    out.push_back(size);
    if (size > max / factor) break;  // the next one would pass max (or wrap)
  }
}

void append_arithmetic(std::string_view range, std::uint64_t min, std::uint64_t max, std::uint64_t step,
                       std::vector<std::uint64_t>& out) {
  if ((max - min) / step >= kMaxListLength) fail("range", range, "too many sizes");
  for (std::uint64_t size = min;; size += step) {
    out.push_back(size);
    if (max - size < step) break;  // size <= max here, so this cannot wrap
  }
}

// Appends "MIN:MAX[:xF|:+STEP]" to `out`.
void append_range(std::string_view range, std::vector<std::uint64_t>& out) {
  if (std::count(range.begin(), range.end(), ':') > 2) {
    fail("range", range, "expected MIN:MAX or MIN:MAX:xFACTOR or MIN:MAX:+STEP");
  }
  const std::size_t first = range.find(':');
  const std::size_t second = range.find(':', first + 1);
  const std::uint64_t min = parse_positive(range.substr(0, first), range);
  const std::uint64_t max = parse_positive(range.substr(first + 1, second - first - 1), range);
  if (min > max) fail("range", range, "MIN is larger than MAX");
  const std::string_view step = second == std::string_view::npos ? std::string_view("x2") : range.substr(second + 1);
  if (!step.empty() && step.front() == 'x') {
    append_geometric(min, max, parse_factor(range, step), out);
  } else if (!step.empty() && step.front() == '+') {
    const std::uint64_t bytes = parse_bytes(step.substr(1), range);
    if (bytes == 0) fail("range", range, "step must not be 0");
    append_arithmetic(range, min, max, bytes, out);
  } else {
    fail("range", range, "step \"" + echo_text(step) + "\" must be xFACTOR or +SIZE");
  }
}

}  // namespace

std::uint64_t parse_size(std::string_view text) { return parse_positive(text, {}); }

std::vector<std::uint64_t> parse_size_list(std::string_view text) {
  if (text.empty()) fail("size list", text, "empty");
  std::vector<std::uint64_t> sizes;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, end - start);
    if (item.empty()) fail("size list", text, "empty item");
    if (item.find(':') == std::string_view::npos) {
      sizes.push_back(parse_size(item));
    } else {
      append_range(item, sizes);
    }
    if (sizes.size() > kMaxListLength) fail("size list", text, "too many sizes");
    start = end + 1;
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::string format_size(std::uint64_t bytes) {
  constexpr std::array<std::string_view, 5> kNames{"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  while (bytes != 0 && bytes % 1024 == 0 && unit + 1 < kNames.size()) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + " " + std::string(kNames[unit]);
}

}  // namespace hetprobe
