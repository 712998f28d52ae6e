// The toy probe's table and record labels, from its records (so `hetprobe
// show` prints from a file what the probe prints at its end).
#pragma once

#include <string>

#include "bench/core/results.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

Report toy_report(const ResultsFile& file);
// "toy timer_read of rank 0".
std::string toy_record_label(const Json& record);

}  // namespace hetprobe
