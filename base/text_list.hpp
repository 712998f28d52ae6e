// Lists of text: option values split at a separator ("a,b,c"), and items
// joined for a message ("a, b, c").
#pragma once

#include <string>
#include <vector>

#include "base/echo_text.hpp"
#include "base/errors.hpp"

namespace hetprobe {

// Every item between separators. An empty item ("", "a,", "a,,b", ",a") is a
// usage Error naming `what` (the option, or what its items are): a stray
// separator is a typing mistake, and silently dropping it would run something
// other than what was asked.
inline std::vector<std::string> split_list(const std::string& text, const std::string& what, char sep = ',') {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end - start));
    if (out.back().empty())
      throw usage_error(what + " '" + echo_text(text) + "': " + (text.empty() ? "empty" : "an empty item") +
                        " (a list takes items separated by single '" + std::string(1, sep) + "')");
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// The items (strings) joined with ", ", in their order: "a, b, c".
template <class Items>
std::string comma_list(const Items& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The items joined as choices: "a, b or c" (one alone: "a").
inline std::string or_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return out;
}

}  // namespace hetprobe
