// The bandwidth probe's table and its records' labels, from the records (so
// `hetprobe show` prints from a file what the probe prints at its end).
#pragma once

#include <string>

#include "bench/core/results.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

Report bandwidth_report(const ResultsFile& file);
// "bandwidth plain read: median 51.25 GB/s", "PCIe link 0000:00:06.0: 32.0 GT/s (gen 5) x16 of max ...".
std::string bandwidth_record_label(const Json& record);

}  // namespace hetprobe
