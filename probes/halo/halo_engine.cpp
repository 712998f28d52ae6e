#include "probes/halo/halo_engine.hpp"

#include <algorithm>

namespace hetprobe {

PartSize halo_part_size(PartSize asked, const HaloMessageArgs* table, std::uint64_t count, std::uint64_t auto_bytes,
                        std::uint64_t max_teams) {
  if (asked.is_whole()) return asked;
  const auto round = [](std::uint64_t b) { return (b + kHaloUnitBytes - 1) / kHaloUnitBytes * kHaloUnitBytes; };
  if (asked.is_bytes()) return PartSize::of(round(std::max<std::uint64_t>(asked.bytes(), 1)));
  std::uint64_t bytes = round(std::max(auto_bytes, kHaloUnitBytes));
  std::uint64_t largest = 0;
  for (std::uint64_t m = 0; m < count; ++m) largest = std::max(largest, table[m].bytes);
  // Double until the teams fit (one team per message at the most: then the grid loops).
  while (bytes < largest && halo_teams(table, count, PartSize::of(bytes)) > max_teams) bytes *= 2;
  return PartSize::of(bytes);
}

std::uint64_t halo_launch_teams(const HaloLaunch& launch, const HaloMessageArgs* table, PartSize size,
                                std::uint64_t max_teams) {
  const std::uint64_t teams = halo_teams(table, launch.args.count, size);
  return std::clamp<std::uint64_t>(teams, 1, std::max<std::uint64_t>(1, max_teams));
}

}  // namespace hetprobe
