#include "base/echo_text.hpp"

namespace hetprobe {

namespace {

// Bytes of the valid UTF-8 sequence at text[i], or 0 when there is none
// (a stray continuation byte, an overlong form, a surrogate, above U+10FFFF).
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) low = 0xA0;
    if (c == 0xED) high = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) low = 0x90;
    if (c == 0xF4) high = 0x8F;
  } else return 0;
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
      continue;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (n == 1 && ((c < 0x20 && c != '\t') || c == 0x7F)) out += '?';
    else out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string echo_text(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0, cut = text.size();
  for (std::size_t i = 0; i < text.size(); ++chars) {
    if (chars == max_chars) cut = i;
    const std::size_t n = utf8_length(text, i);
    i += n == 0 ? 1 : n;
  }
  if (cut == text.size()) return valid_utf8(text);
  return valid_utf8(text.substr(0, cut)) + "... (" + std::to_string(chars) + " characters)";
}

}  // namespace hetprobe
