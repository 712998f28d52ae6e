// Range checks for numeric options, as CLI11 validators: a bad value fails at
// parse time (exit 2, nothing written), the message names the option and its
// range, and `--help` shows the range beside the option.
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/echo_text.hpp"
#include "base/enum_table.hpp"
#include "base/errors.hpp"

namespace hetprobe::cli {

// The longest wait, span or timeout any option may ask for: a day. Longer
// ones are typing mistakes (or "inf"), and would hang a job past any batch limit.
inline constexpr double kMaxSeconds = 86400;
// The most samples, repetitions, iterations or exchanges an option may ask
// for: far past any useful run, and small enough that every count, product and
// buffer derived from it fits its type.
inline constexpr int kMaxCount = 1'000'000;
// --gpu: an ordinal within a backend; whether the node has it is checked when it is opened.
inline constexpr int kMaxDeviceOrdinal = 1023;

inline std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", x);
  return text;
}

// A finite number in [lo, hi], or (lo, hi] when `above_lo`. (CLI::Range lets
// NaN through and names no unit.) `unit` is appended to the range, e.g. " s".
inline CLI::Validator number_in(double lo, double hi, bool above_lo = false, const std::string& unit = "") {
  const std::string range = std::string(above_lo ? "(" : "[") + number_text(lo) + ", " + number_text(hi) + "]" + unit;
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double x = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, x);
        const bool ok = ec == std::errc() && ptr == end && std::isfinite(x) && (above_lo ? x > lo : x >= lo) && x <= hi;
        return ok ? std::string() : "'" + text + "' is not a finite number in " + range;
      },
      "in " + range);
}

// Seconds: finite, above 0, at most a day.
inline CLI::Validator seconds_up_to_a_day() { return number_in(0, kMaxSeconds, true, " s"); }

// A whole number in [lo, hi], in decimal. Checked on the text, before CLI11
// converts it: "-1" never becomes 2^64-1 in an unsigned option, nor does a
// value past the type's range wrap.
inline CLI::Validator integer_in(long long lo, long long hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        long long x = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, x);
        const bool ok = ec == std::errc() && ptr == end && x >= lo && x <= hi;
        return ok ? std::string() : "'" + text + "' is not a whole number in " + range;
      },
      "in " + range);
}

// Counts of samples, repetitions, iterations: at least `lo`, at most kMaxCount.
inline CLI::Validator count_from(int lo) { return integer_in(lo, kMaxCount); }

// A count option (`least` or more, at most kMaxCount), its default shown in --help.
template <class Count>
CLI::Option* add_count_option(CLI::App* command, const std::string& name, Count& count, const std::string& help,
                              int least = 1) {
  return command->add_option(name, count, help)->check(count_from(least))->capture_default_str();
}

// Parses `value` with `parse`; a usage Error it throws gets the option and
// value in front ("--variants fast: halo variant 'fast': expected ..."), a
// long value cut short.
template <class Parse>
auto parse_option(const std::string& option, const std::string& value, Parse parse) {
  try {
    return parse(value);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::usage) throw;
    throw usage_error(option + " " + echo_text(value) + ": " + e.what());
  }
}

// An option naming one value of `names`, or a list of them (or all); errors
// name the option, the value and the valid names.
template <class E, std::size_t N>
E parse_enum(const std::string& option, const std::string& value, const EnumTable<E, N>& names) {
  return parse_option(option, value, [&](const std::string& text) { return names.parse(text); });
}
template <class E, std::size_t N>
std::vector<E> parse_enum_list(const std::string& option, const std::string& value, const EnumTable<E, N>& names) {
  return parse_option(option, value, [&](const std::string& text) { return names.parse_list(text); });
}

// An option whose text `parse` turns into `value` when it is given; the
// usage Error it throws refuses it as every option check is (exit 2, the
// option named).
template <class T, class Parse>
CLI::Option* add_parsed_option(CLI::App* command, const std::string& flag, T& value, Parse parse,
                               const std::string& help) {
  return command->add_option_function<std::string>(
      flag,
      [&value, parse, flag](const std::string& text) {
        try {
          value = parse(text);
        } catch (const Error& e) {
          throw CLI::ValidationError(flag, e.what());
        }
      },
      help);
}

// An option naming one value of `table` (a constant); a name not in it is
// refused with the valid names, and --help shows the default.
template <class E, std::size_t N>
CLI::Option* add_enum_option(CLI::App* command, const std::string& flag, E& value, const EnumTable<E, N>& table,
                             const std::string& help) {
  return add_parsed_option(
             command, flag, value, [&table](const std::string& text) { return table.parse(text); },
             help + " [default: " + table.name(value) + "]")
      ->type_name("NAME");
}

}  // namespace hetprobe::cli
