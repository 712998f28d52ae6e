#include "bench/halo/halo_parts.hpp"

#include <algorithm>

#include "base/echo_text.hpp"
#include "base/errors.hpp"
#include "base/text_list.hpp"
#include "bench/core/sizes.hpp"
#include "probes/halo/halo_protocol.hpp"

namespace hetprobe {

namespace {

constexpr std::string_view kAuto = "auto", kWhole = "whole";

}  // namespace

PartSize parse_part_size(std::string_view text) {
  if (text == kAuto) return PartSize::automatic();
  if (text == kWhole) return PartSize::whole();
  std::uint64_t bytes = 0;
  try {
    bytes = parse_size(text);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::usage) throw;
    throw usage_error("a part is auto, whole or a size like 32KiB, not " + echo_text(text));
  }
  if (bytes < kHaloUnitBytes || bytes > kMaxHaloPartBytes)
    throw usage_error("a part is " + std::to_string(kHaloUnitBytes) + " B to " + format_size(kMaxHaloPartBytes) +
                      ", not " + echo_text(text));
  return PartSize::of(bytes);
}

std::vector<PartSize> parse_part_sizes(std::string_view text) {
  std::vector<PartSize> out;
  for (const std::string& item : split_list(std::string(text), "part list")) {
    const PartSize p = parse_part_size(item);
    if (std::find(out.begin(), out.end(), p) != out.end())
      throw usage_error("part '" + echo_text(item) + "' is listed twice");
    out.push_back(p);
  }
  return out;
}

std::string to_string(PartSize parts) {
  switch (parts.kind()) {
    case PartSize::Kind::automatic: return std::string(kAuto);
    case PartSize::Kind::whole: return std::string(kWhole);
    case PartSize::Kind::bytes: break;
  }
  std::string size = format_size(parts.bytes());
  size.erase(std::remove(size.begin(), size.end(), ' '), size.end());
  return size;
}

Json to_json(PartSize parts) { return parts.is_bytes() ? Json(parts.bytes()) : Json(to_string(parts)); }

PartSize part_size_at(const RecordRef& r, std::string_view path) {
  const Json& j = field_json(r, path);
  if (j.is_number_unsigned() && j.get<std::uint64_t>() > 0) return PartSize::of(j.get<std::uint64_t>());
  if (j.is_string() && j.get<std::string>() == kAuto) return PartSize::automatic();
  if (j.is_string() && j.get<std::string>() == kWhole) return PartSize::whole();
  bad_field(r, path, "\"auto\", \"whole\" or bytes per part (a whole number above 0)");
}

}  // namespace hetprobe
