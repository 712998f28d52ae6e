// Text from outside (an option's value, a line of a file, a sysfs attribute)
// made fit to print and to put in JSON, which takes only valid UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hetprobe {

// `text` with each byte that is not part of valid UTF-8 replaced by U+FFFD
// and each control character (but tab) by '?'.
std::string valid_utf8(std::string_view text);

// valid_utf8(text), cut to its first `max_chars` characters with the length
// said after it ("1234567890... (10000000 characters)"), for echoing input in
// a message: a 10 MB number is named, not repeated.
std::string echo_text(std::string_view text, std::size_t max_chars = 80);

}  // namespace hetprobe
