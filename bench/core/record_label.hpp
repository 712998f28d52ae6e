// One line naming a record, for progress output and the warnings beside a table.
#pragma once

#include <string>

#include "bench/core/results.hpp"

namespace hetprobe {

std::string record_label(const Json& record);

}  // namespace hetprobe
