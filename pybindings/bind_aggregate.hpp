// The aggregation stage's part of hetprobe._core (bind_aggregate.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include "bench/core/results.hpp"

namespace hetprobe {

// Adds split_launch and interference_aggregates to the module; `to_python`
// makes a JSON value the object json.loads would.
void bind_aggregate(pybind11::module_& m, pybind11::object (*to_python)(const Json&));

}  // namespace hetprobe
