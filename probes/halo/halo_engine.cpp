#include "probes/halo/halo_engine.hpp"

#include <algorithm>

namespace hetprobe {

std::uint64_t halo_part_bytes(std::uint64_t asked, const HaloMessageArgs* table, std::uint64_t count,
                              std::uint64_t auto_bytes, std::uint64_t max_teams) {
  if (asked == kHaloWholeMessages) return 0;
  const auto round = [](std::uint64_t b) { return (b + kHaloUnitBytes - 1) / kHaloUnitBytes * kHaloUnitBytes; };
  if (asked != kHaloPartsAuto) return round(asked);
  std::uint64_t bytes = round(std::max(auto_bytes, kHaloUnitBytes));
  std::uint64_t largest = 0;
  for (std::uint64_t m = 0; m < count; ++m) largest = std::max(largest, table[m].bytes);
  // Double until the teams fit (one team per message at the most: then the grid loops).
  while (bytes < largest && halo_teams(table, count, bytes) > max_teams) bytes *= 2;
  return bytes;
}

}  // namespace hetprobe
