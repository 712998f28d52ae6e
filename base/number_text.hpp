// Measured numbers and their intervals as every table, progress line, verdict
// and report writes them (Python's report reads these through the compiled
// module), so one value reads the same wherever it appears.
#pragma once

#include <optional>
#include <string>

#include "base/stats.hpp"

namespace hetprobe {

// 4 significant digits ("9.123", "0.0125"), whole numbers with thousands
// separators from 10,000 on ("12,346").
std::string number_text(double x);

// A range of measured numbers, "9.123-9.456": each bound as number_text
// writes it (a quantity's interval or its launches' spread, with a unit).
std::string range_text(double low, double high);

// A ratio's 95% interval, "0.95-1.08": two decimals, whole numbers with
// thousands separators from 100 on ("1,234"); "-" without one.
std::string interval_text(const std::optional<Interval>& ci);

}  // namespace hetprobe
