// Human-readable tables of notify and clock results, from their records (so
// `hetprobe show` prints the same tables from a file).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "hetprobe/results.hpp"

namespace hetprobe {

void print_notify_tables(std::FILE* out, const Json& header, const std::vector<Json>& records);
void print_clock_table(std::FILE* out, const Json& header, const std::vector<Json>& records);
// One line naming a record, for progress output.
std::string record_label(const Json& record);

}  // namespace hetprobe
