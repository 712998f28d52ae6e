// A halo part size's one parser, one JSON form and one text form
// (PartSize: probes/halo/part_size.hpp). Options, records, tables, setup
// labels and the Python package all go through these.
//   text:  "auto", "whole", or the size as format_size writes it without its
//          space ("32KiB", "1536B"), as --parts takes it back;
//   JSON:  "auto", "whole", or bytes (an integer);
//   parse: "auto", "whole", or any size parse_size reads ("32768", "32KiB"),
//          from kHaloUnitBytes to kMaxHaloPartBytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bench/core/record_field.hpp"
#include "probes/halo/part_size.hpp"

namespace hetprobe {

inline constexpr std::uint64_t kMaxHaloPartBytes = 1ull << 30;

// One part size; anything else is a usage Error saying what is expected.
PartSize parse_part_size(std::string_view text);
// A list ("auto,whole,32KiB"), each at most once.
std::vector<PartSize> parse_part_sizes(std::string_view text);

std::string to_string(PartSize parts);
Json to_json(PartSize parts);
// The JSON form at `path` of a record read back; anything else is the file's
// fault (a usage Error naming the record and the field).
PartSize part_size_at(const RecordRef& r, std::string_view path);

}  // namespace hetprobe
