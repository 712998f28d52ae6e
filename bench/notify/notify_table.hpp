// The human-readable tables of notify results, from their records (so
// `hetprobe show` prints the same tables from a file).
#pragma once

#include <cstdio>
#include <vector>

#include "bench/core/results.hpp"

namespace hetprobe {

void print_notify_tables(std::FILE* out, const Json& header, const std::vector<Json>& records);

}  // namespace hetprobe
