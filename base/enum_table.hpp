// The names of an enum's values, in one table per enum: to_string, the
// parser of one name and of a list ("a,b", or "all"), and the valid names for
// --help and for error messages all read the same table, so a name can never
// be printed one way and parsed another.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/echo_text.hpp"
#include "base/errors.hpp"
#include "base/text_list.hpp"

namespace hetprobe {

// Which values a user may name, and which "all" stands for.
enum class EnumUse {
  listed,      // parsed, and part of "all"
  named_only,  // parsed when named, never part of "all" (--load none: no load)
  internal,    // printed only: never parsed (a value the tool chooses itself)
};

template <class E>
struct EnumName {
  E value;
  const char* name;
  EnumUse use = EnumUse::listed;
};

enum class EnumCase { exact, ignored };  // ignored: "p2ab" is P2AB

template <class E, std::size_t N>
struct EnumTable {
  const char* what;  // what a value is, for messages: "flag spacing"
  std::array<EnumName<E>, N> names;
  EnumCase letter_case = EnumCase::exact;

  const char* name(E value) const {
    for (const EnumName<E>& n : names)
      if (n.value == value) return n.name;
    return "?";
  }

  // The names a user may give, in table order: "a, b, c".
  std::string valid_names() const {
    std::string out;
    for (const EnumName<E>& n : names)
      if (n.use != EnumUse::internal) out += (out.empty() ? "" : ", ") + std::string(n.name);
    return out;
  }

  // One name; anything else is a usage Error naming the valid ones.
  E parse(std::string_view text) const { return parse_in(text, valid_names()); }

  // A list of names separated by commas, or "all" (every listed value, in table
  // order). A value named twice is a usage Error, as an empty item is: either
  // is a typing mistake, and running it anyway would measure something else.
  std::vector<E> parse_list(std::string_view text) const {
    if (names_all(text)) return all();
    const std::string expected = valid_names() + " or all";
    std::vector<E> out;
    for (const std::string& item : split_list(std::string(text), std::string(what) + " list")) {
      const E value = parse_in(item, expected);
      if (std::find(out.begin(), out.end(), value) != out.end())
        throw usage_error(std::string(what) + " '" + echo_text(item) + "' is listed twice");
      out.push_back(value);
    }
    return out;
  }

  // One name, where the error's list of what else may be given is the
  // caller's (`expected`: the names and more, as --bind's cpu lists).
  E parse_in(std::string_view text, const std::string& expected) const {
    for (const EnumName<E>& n : names)
      if (n.use != EnumUse::internal && same(text, n.name)) return n.value;
    throw usage_error("unknown " + std::string(what) + " '" + echo_text(text) + "' (expected " + expected + ")");
  }

  // Whether `text` is "all", in the table's letter case.
  bool names_all(std::string_view text) const { return same(text, "all"); }

  // Every value "all" stands for, in table order.
  std::vector<E> all() const {
    std::vector<E> out;
    for (const EnumName<E>& n : names)
      if (n.use == EnumUse::listed) out.push_back(n.value);
    return out;
  }

 private:
  bool same(std::string_view text, std::string_view name) const {
    if (letter_case == EnumCase::exact) return text == name;
    return std::equal(text.begin(), text.end(), name.begin(), name.end(), [](char a, char b) {
      return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
  }
};

}  // namespace hetprobe
