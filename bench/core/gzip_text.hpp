// Results files stored gzip-compressed (*.jsonl.gz, as notebooks/data keeps
// its large ones): every reader takes them, told apart by the gzip magic
// bytes rather than the name. Writers always write plain JSON Lines.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace hetprobe {

// Whether `bytes` begin with the gzip magic (1f 8b).
bool is_gzip(std::string_view bytes);

// The text of a gzip stream (several members, as `cat a.gz b.gz` makes,
// follow each other). A stream cut short gives the text up to the cut, as a
// killed run's file does; a corrupt one throws hetprobe::Error(usage) naming
// `where`, and so does one whose text would pass `max_bytes` (a small file
// that expands to more than any reader should hold), as soon as it does.
std::string gunzip(std::string_view bytes, const std::filesystem::path& where, std::size_t max_bytes);

}  // namespace hetprobe
