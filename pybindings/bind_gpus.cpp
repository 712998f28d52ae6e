// hetprobe._core's node verdict (bench/gpus/node_verdict.hpp), computed once
// in C++ for characterize, `hetprobe check` and the report, and the node
// model (bench/model/model_document.hpp).
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bench/gpus/gpu_metrics.hpp"
#include "bench/gpus/node_verdict.hpp"
#include "bench/model/model_document.hpp"
#include "bind_common.hpp"

namespace py = pybind11;

namespace hetprobe {

void bind_gpus(py::module_& m) {
  m.def(
      "node_verdict",
      [](const std::vector<std::string>& paths, double tolerance) {
        return to_python(node_verdict(read_run(paths), tolerance));
      },
      py::arg("paths"), py::arg("tolerance"),
      "The node verdict of a run's results files (every launch of the gpus step, bandwidth's links): "
      "docs/results-schema.md, gpus_verdict; UsageError naming FILE:LINE for a malformed record");
  m.def(
      "baseline_verdict",
      [](const std::vector<std::string>& run, const std::vector<std::vector<std::string>>& baselines,
         double tolerance) {
        std::vector<RunFiles> bases;
        for (const auto& b : baselines) bases.push_back(read_whole(b, "--baseline"));
        return to_python(baseline_verdict(read_whole(run, "RUN_DIR"), bases, tolerance));
      },
      py::arg("run"), py::arg("baselines"), py::arg("tolerance"),
      "A run's results files against baseline runs' (each a list of files) of one node, GPU by GPU; UsageError "
      "for runs that cannot be compared (bench/gpus/node_verdict.hpp)");
  m.def(
      "check_baseline_node",
      [](int gpus, const std::string& backend, const std::vector<std::string>& names,
         const std::vector<std::vector<std::string>>& baselines, const std::string& where) {
        std::vector<RunFiles> bases;
        for (const auto& b : baselines) bases.push_back(read_whole(b, "--baseline"));
        check_baseline_node({gpus, backend, names}, bases, where);
      },
      py::arg("gpus"), py::arg("backend"), py::arg("names"), py::arg("baselines"), py::arg("where"),
      "UsageError where a node (its GPU count, backend, models by ordinal) cannot be checked against the "
      "baseline runs");
  m.def(
      "parse_tolerance",
      [](const std::string& text, const std::string& option) { return parse_tolerance(text, option); }, py::arg("text"),
      py::arg("option") = "--tolerance",
      "A tolerance, \"10%\" or \"0.1\", as a fraction; UsageError naming `option` otherwise");
  m.def("tolerance_text", &tolerance_text, py::arg("tolerance"), "0.1 as \"10%\"");
  m.def("device_model", &device_model, py::arg("name"),
        "A device's name less the mark of a host device slowed on purpose (HETPROBE_HOST_SLOW)");
  m.attr("default_tolerance") = kDefaultTolerance;
  {
    py::list metrics;
    for (const GpuMetric& g : kGpuMetrics) {
      py::dict d;
      d["key"] = g.key;
      d["label"] = g.label;
      d["unit"] = g.unit;
      d["worse"] = g.worse == Worse::higher ? "higher" : "lower";
      d["column"] = g.column;
      metrics.append(d);
    }
    m.attr("gpu_metrics") = metrics;
  }
  m.def(
      "node_model",
      [](const std::string& run, const std::string& halo) {
        return node_model_json(run, halo).dump(-1, ' ', false, Json::error_handler_t::replace);
      },
      py::arg("run"), py::arg("halo") = "",
      "`hetprobe model RUN [--halo FILE] --format json` as JSON text: the node model fitted from a characterize "
      "run (or an interference file) and its predictions of a halo run of the same node "
      "(bench/model/model_document.hpp)");
}

}  // namespace hetprobe
