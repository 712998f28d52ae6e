// What the parts of hetprobe._core share: JSON as Python objects, a run's
// results files read whole, and each domain's binder (one file each).
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "base/errors.hpp"
#include "bench/core/results.hpp"
#include "bench/gpus/node_verdict.hpp"

namespace hetprobe {

// JSON (an nlohmann value) as the Python object json.loads makes of it.
pybind11::object to_python(const Json& j);

// A run's results files, read by the bounded reader (regular files only).
RunFiles read_run(const std::vector<std::string>& paths);

// The files of a run to be judged whole (`what`: "--baseline", "RUN_DIR"):
// one with no records, or cut short, is named and refused (UsageError).
RunFiles read_whole(const std::vector<std::string>& paths, const std::string& what);

// The hetprobe.errors class that an ErrorKind becomes in Python.
const char* exception_name(ErrorKind kind);

void bind_probes(pybind11::module_& m);     // in-process probes, their options, topology, devices
void bind_records(pybind11::module_& m);    // versions, names, errors, upgrades, record labels
void bind_tables(pybind11::module_& m);     // show's tables, numbers as text, summaries
void bind_judgement(pybind11::module_& m);  // effects, pooled ratios, the headline's choices
void bind_gpus(pybind11::module_& m);       // the node verdict, tolerances, the node model
void bind_aggregate(pybind11::module_& m);  // a run's launches and aggregates

}  // namespace hetprobe
