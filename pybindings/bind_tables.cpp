// hetprobe._core's tables and texts: the tables `hetprobe show` prints,
// computed by the probes' own table code, and numbers, intervals, loads and
// summaries written once in C++ so that the report writes them as show does.
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/number_text.hpp"
#include "base/stats.hpp"
#include "bench/cli/probe_table.hpp"
#include "bench/core/table.hpp"
#include "bench/halo/halo.hpp"
#include "bench/halo/halo_parts.hpp"
#include "bench/halo/halo_phases.hpp"
#include "bench/interference/interference.hpp"
#include "bind_common.hpp"
#include "probes/load/load_names.hpp"

namespace py = pybind11;

namespace hetprobe {

void bind_tables(py::module_& m) {
  m.def(
      "report_tables",
      [](const std::string& text, const std::string& where) {
        const Json tables = report_json(results_report(parse_results(where, text)));
        return to_python(tables);
      },
      py::arg("text"), py::arg("where"),
      "The tables `hetprobe show --format json` prints of results text (JSON Lines, a header first): "
      "{table: [row]}, computed by the probes' own table code; `where` names the text in errors");
  m.def(
      "pooled_tables",
      [](const std::vector<std::pair<std::string, std::string>>& launches) {
        std::vector<ResultsFile> files;
        for (const auto& [text, where] : launches) files.push_back(parse_results(where, text));
        const Json tables = report_json(pooled_report(files));
        return to_python(tables);
      },
      py::arg("launches"),
      "The table `hetprobe show --pool --format json` prints of launches of one command, each (text, where): "
      "{table: [row]}, pooled by the probe's own code (interference_launches, halo_launches)");
  m.def(
      "check_results_file", [](const std::string& path) { check_results(read_results(path)); }, py::arg("path"),
      "The checks `hetprobe show` makes of a results file, run by run: UsageError naming FILE:LINE and the "
      "field of the first malformed record");
  py::class_<Summary>(m, "Summary",
                      "The statistics of a reading (base/stats.hpp): n, min, p10, median, p90, p99, max, mean, "
                      "stddev, as every record's summaries are computed (docs/metrics.md)")
      .def_readonly("n", &Summary::n)
      .def_readonly("min", &Summary::min)
      .def_readonly("p10", &Summary::p10)
      .def_readonly("median", &Summary::median)
      .def_readonly("p90", &Summary::p90)
      .def_readonly("p99", &Summary::p99)
      .def_readonly("max", &Summary::max)
      .def_readonly("mean", &Summary::mean)
      .def_readonly("stddev", &Summary::stddev)
      .def(
          "as_dict", [](const Summary& s) { return to_python(summary_json(s)); },
          "The summary as a record holds it: {n, min, p10, median, p90, p99, max, mean, stddev}");
  m.def(
      "summarize",
      [](const std::vector<double>& values) {
        return values.empty() ? std::optional<Summary>() : std::optional<Summary>(summarize(values));
      },
      py::arg("values"), "The Summary of the values; None for no values");
  // A halo part size, parsed, written and shown once in C++ (bench/halo/halo_parts.hpp) for the tables,
  // the setup labels and the notebook.
  py::class_<PartSize>(m, "PartSize",
                       "A halo part size (probes/halo/part_size.hpp): kind (\"auto\", \"whole\" or \"bytes\"), bytes "
                       "(None unless kind is \"bytes\"); str() is its text form (\"32KiB\"), as --parts takes it")
      .def_property_readonly("kind", [](const PartSize& p) { return p.is_bytes() ? "bytes" : to_string(p); })
      .def_property_readonly("bytes",
                             [](const PartSize& p) { return p.is_bytes() ? std::optional(p.bytes()) : std::nullopt; })
      .def("__str__", [](const PartSize& p) { return to_string(p); })
      .def("__eq__", [](const PartSize& a, const PartSize& b) { return a == b; })
      .def("__repr__", [](const PartSize& p) { return "PartSize('" + to_string(p) + "')"; });
  m.def("parse_part_size", &parse_part_size, py::arg("text"),
        "A PartSize of --parts' text (\"auto\", \"whole\" or a size such as \"32KiB\"); UsageError for anything else");
  m.def(
      "part_size_text",
      [](const std::variant<std::uint64_t, std::string>& parts) {
        const Json record{{"parts", std::visit([](const auto& v) { return Json(v); }, parts)}};
        return to_string(part_size_at({record, "a halo record"}, "parts"));
      },
      py::arg("parts"),
      "A halo record's parts (its JSON form: \"auto\", \"whole\" or bytes) as the tables show them: \"auto\", "
      "\"whole\" or a size like \"32KiB\"; UsageError for anything else");
  // What makes a halo message long (its stage's rate is held to the link's): the
  // probe's threshold, for files from before its records carried it.
  m.attr("halo_long_message_bytes") = kHaloLongMessageBytes;
  // Numbers and intervals are written once (base/number_text.hpp): the report writes them as show does.
  m.def("number_text", &number_text, py::arg("x"),
        "A measured number as every table and report writes it: 4 significant digits, whole with thousands "
        "separators from 10,000 on");
  m.def(
      "interval_text",
      [](double low, double high) {
        return interval_text(std::isfinite(low) && std::isfinite(high) ? std::optional{Interval{low, high}}
                                                                       : std::nullopt);
      },
      py::arg("low"), py::arg("high"),
      "A ratio's 95% interval as show writes it, \"0.95-1.08\" (whole numbers with separators from 100 on); "
      "\"-\" where a bound is not finite (no interval)");
  m.def(
      "load_label",
      [](const std::string& kind, int gpus, const std::optional<std::string>& rate, bool brief) {
        return load_label(kind, gpus, rate ? std::optional{parse_load_rate(*rate)} : std::nullopt, brief);
      },
      py::arg("kind"), py::arg("gpus"), py::arg("rate"), py::arg("brief") = false,
      "A load as show and the progress lines name it, \"write x2 @0.5\" (rate: a load_rate label, None for the "
      "full rate); brief=True leaves \"x1\" out, as the bare programs name their loads (bench/load/load_options.hpp)");
  m.def(
      "record_label", [](const std::string& record) { return record_label(Json::parse(record)); }, py::arg("record"),
      "One line naming a record (JSON text), as the progress lines name it: its probe's label, \"\" for a record "
      "that is no progress item");
}

}  // namespace hetprobe
