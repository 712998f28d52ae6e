// The gpus probe's tables from its records: every visit, then each GPU's
// numbers and ratios to the node as its launch's verdict judged them.
#pragma once

#include <string>

#include "bench/core/results.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

Report gpus_report(const ResultsFile& file);
std::string gpus_record_label(const Json& record);

}  // namespace hetprobe
