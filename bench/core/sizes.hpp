// Message sizes from the command line: single sizes, lists and ranges, with
// units. Every size is a whole number of bytes.
//
// Units (case-sensitive, optional space before the unit is NOT allowed):
//   B (or none) = 1;  KB MB GB TB = 10^3, 10^6, 10^9, 10^12 (decimal, also kB);
//   KiB MiB GiB TiB = 2^10, 2^20, 2^30, 2^40;  K M G T alone = binary, the
//   nccl-tests / OSU habit ("-b 8 -e 128M").
//   A fractional number is allowed only if the result is a whole number of
//   bytes: "1.5KiB" = 1536, "1.5B" is an error.
//
// Lists and ranges (items separated by commas, may be mixed):
//   "8,1KiB,4MiB"          the sizes given
//   "1KiB:64MiB:x2"        geometric: 1 KiB, 2 KiB, ... up to and including 64 MiB
//   "1KiB:1MiB:+64KiB"     arithmetic: 1 KiB, 65 KiB, 129 KiB, ... while <= 1 MiB
//   "1KiB:64MiB"           geometric with factor 2
//   A range stops at the last size <= MAX (MAX itself only if it is hit).
// The result is sorted ascending with duplicates removed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hetprobe {

// Throws hetprobe::Error(ErrorKind::usage) naming the bad text for anything
// malformed: empty, negative, zero, unknown unit, overflow past 2^63, a factor
// <= 1 (must be an integer >= 2) or a step of 0, MIN > MAX, non-whole bytes.
std::uint64_t parse_size(std::string_view text);
std::vector<std::uint64_t> parse_size_list(std::string_view text);

// A size for people: the largest binary unit that divides it exactly
// ("64 MiB", "1536 B" -> "1.5 KiB" is NOT used: "1536 B"), e.g. 1024 -> "1 KiB",
// 3072 -> "3 KiB", 1000 -> "1000 B".
std::string format_size(std::uint64_t bytes);

}  // namespace hetprobe
