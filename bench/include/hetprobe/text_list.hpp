// Option values that are lists: "a,b,c" split at a separator.
#pragma once

#include <string>
#include <vector>

namespace hetprobe {

// Every item between separators, empty ones included ("" -> {""}; "a," -> {"a", ""}),
// so a caller's parser reports them.
inline std::vector<std::string> split_list(const std::string& text, char sep = ',') {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

}  // namespace hetprobe
