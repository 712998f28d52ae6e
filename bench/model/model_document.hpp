// The node model as one document: what `hetprobe model` prints and
// hetprobe.model() reads.
#pragma once

#include <string>

#include "bench/core/results.hpp"
#include "bench/core/table.hpp"

namespace hetprobe {

// The model of `run` (a characterize run directory or an interference file)
// and, with `halo` not empty, its predictions of that halo run: the JSON
// document `hetprobe model --format json` prints and hetprobe.model() reads.
// A usage Error for a run without the series the fit needs, a halo run of
// another node, or a halo layout the model cannot place.
Json node_model_json(const std::string& run, const std::string& halo, Report* report = nullptr);

}  // namespace hetprobe
