// The human-readable table of clock results, from their records (so
// `hetprobe show` prints the same table from a file).
#pragma once

#include <cstdio>
#include <vector>

#include "bench/core/results.hpp"

namespace hetprobe {

void print_clock_table(std::FILE* out, const Json& header, const std::vector<Json>& records);

}  // namespace hetprobe
