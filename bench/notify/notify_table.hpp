// The tables of notify results and their records' labels, from the records (so
// `hetprobe show` prints from a file what the probe prints at its end).
#pragma once

#include <string>

#include "bench/core/results.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

Report notify_report(const ResultsFile& file);
// "roundtrip cpu-gpu-cpu (volatile/relaxed): median 2520.1 ns", ...
std::string notify_record_label(const Json& record);

}  // namespace hetprobe
