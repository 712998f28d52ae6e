// The tables of clock results and their records' labels, from the records (so
// `hetprobe show` prints from a file what the probe prints at its end).
#pragma once

#include <string>

#include "bench/core/results.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

Report clock_report(const ResultsFile& file);
// "clock batch 2 (fit) at 4.00 s", "clock fit: drift 1.93 ppm, precision 1248 ns".
std::string clock_record_label(const Json& record);

}  // namespace hetprobe
