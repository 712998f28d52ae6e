// hetprobe._core's aggregation stage (bench/aggregate/): a run's launches,
// the steps their files name, and each probe's points pooled over launches.
// Python reads these; it pools nothing itself.
#include "bind_common.hpp"

#include <pybind11/stl.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "bench/aggregate/run_launches.hpp"
#include "bench/interference/interference_aggregate.hpp"
#include "bench/interference/interference_headline.hpp"

namespace py = pybind11;

namespace hetprobe {

namespace {

// Records as Python holds them: (record id, file, JSON text), in the order read.
using PythonRecords = std::vector<std::tuple<std::int64_t, std::string, std::string>>;

// The records grouped into their files (in the order first seen), and each one's id.
struct RecordsAsFiles {
  std::vector<ResultsFile> files;
  std::map<RecordAt, std::int64_t> ids;
};

RecordsAsFiles as_files(const PythonRecords& records) {
  RecordsAsFiles out;
  std::map<std::string, std::size_t> file_of;
  for (const auto& [id, file, text] : records) {
    const auto [it, fresh] = file_of.emplace(file, out.files.size());
    if (fresh) out.files.emplace_back().path = file;
    std::vector<Json>& held = out.files[it->second].records;
    out.ids[{it->second, held.size()}] = id;
    held.push_back(Json::parse(text));
  }
  return out;
}

// An aggregate as a record, with the ids of the records it came from.
Json aggregate_with_ids(const InterferenceAggregate& a, const RecordsAsFiles& in) {
  Json record = aggregate_record(a, in.files);
  Json ids = Json::array();
  for (const RecordAt& at : a.records) ids.push_back(in.ids.at(at));
  record["record_ids"] = std::move(ids);
  return record;
}

// The headline as Python reads it: C++'s picks (indices into `aggregates`),
// its numbers for characterize.json, and the aggregates the picks index.
struct PythonHeadline {
  InterferenceHeadline picks;
  py::object numbers;
  py::object aggregates;
};

// The headline's types as Python classes (bench/interference/interference_headline.hpp).
void bind_headline_types(py::module_& m) {
  py::enum_<HeadlineVerdict>(m, "HeadlineVerdict",
                             "On what grounds a headline row names its point (base/headline_choice.hpp): claimed "
                             "(its interval lies wholly beyond the margin), within_noise, no_interval")
      .value("claimed", HeadlineVerdict::claimed)
      .value("within_noise", HeadlineVerdict::within_noise)
      .value("no_interval", HeadlineVerdict::no_interval)
      .def("__str__", [](HeadlineVerdict v) { return std::string(to_string(v)); });
  py::class_<SlowdownPick>(m, "SlowdownPick",
                           "A headline row's point (an index into the aggregates), its verdict and the claimed "
                           "slowdowns as large within the noise (near_ties, largest first)")
      .def_readonly("point", &SlowdownPick::point)
      .def_readonly("verdict", &SlowdownPick::verdict)
      .def_readonly("near_ties", &SlowdownPick::near_ties);
  py::class_<SpeedupPick>(m, "SpeedupPick", "The fastest claimed speed-up (an index) and how many points claim one")
      .def_readonly("fastest", &SpeedupPick::fastest)
      .def_readonly("count", &SpeedupPick::count);
  py::class_<LayoutRatio>(m, "LayoutRatio", "A layout's typical ratio_to_ssb (unpacks as (layout, ratio_to_ssb))")
      .def_readonly("layout", &LayoutRatio::layout)
      .def_readonly("ratio_to_ssb", &LayoutRatio::ratio)
      .def("__iter__", [](const LayoutRatio& t) { return py::iter(py::make_tuple(t.layout, t.ratio)); });
  py::class_<PythonHeadline>(m, "Headline",
                             "The interference headline, chosen once in C++: judged, warm_steps, warm and cold (a "
                             "SlowdownPick or None), speedup (a SpeedupPick or None), worst and paper_largest (an "
                             "index or None), paper_typical ([LayoutRatio]); numbers (characterize.json's "
                             "headline) and aggregates (interference_aggregates' list, which the indices index)")
      .def_property_readonly("judged", [](const PythonHeadline& h) { return h.picks.judged; })
      .def_property_readonly("warm_steps", [](const PythonHeadline& h) { return h.picks.warm_steps; })
      .def_property_readonly("warm", [](const PythonHeadline& h) { return h.picks.warm; })
      .def_property_readonly("cold", [](const PythonHeadline& h) { return h.picks.cold; })
      .def_property_readonly("speedup", [](const PythonHeadline& h) { return h.picks.speedup; })
      .def_property_readonly("worst", [](const PythonHeadline& h) { return h.picks.worst; })
      .def_property_readonly("paper_largest", [](const PythonHeadline& h) { return h.picks.paper_largest; })
      .def_property_readonly("paper_typical", [](const PythonHeadline& h) { return h.picks.paper_typical; })
      .def_readonly("numbers", &PythonHeadline::numbers)
      .def_readonly("aggregates", &PythonHeadline::aggregates);
}

}  // namespace

void bind_aggregate(py::module_& m) {
  bind_headline_types(m);
  m.def(
      "split_launch",
      [](const std::string& name) {
        const StepLaunch s = split_launch(name);
        return std::pair(s.step, s.launch);
      },
      py::arg("name"),
      "(step, launch) of a launch's name or its file's: \"interference.launch2.jsonl\" is (\"interference\", 2) "
      "(bench/aggregate/run_launches.hpp)");
  m.def("launch_file_stem", &launch_file_stem, py::arg("step"), py::arg("launch"),
        "The stem of a step's launch's files: \"interference\" for launch 1, then \"interference.launch2\", ...");
  m.def(
      "interference_aggregates",
      [](const PythonRecords& records) {
        const RecordsAsFiles in = as_files(records);
        Json out = Json::array();
        for (const InterferenceAggregate& a : aggregate_interference(in.files))
          out.push_back(aggregate_with_ids(a, in));
        return to_python(out);
      },
      py::arg("records"),
      "The interference points of these records ((record id, file, JSON text) each, in the order read: headers "
      "and points), pooled per series (launches of one command) and point: aggregate records "
      "(docs/results-schema.md), each with the record_ids it came from (bench/interference/"
      "interference_aggregate.hpp)");
  m.def(
      "interference_headline",
      [](const PythonRecords& records, const std::vector<std::string>& warm_steps,
         const std::vector<std::string>& cold_steps, const std::vector<std::string>& paper_steps) {
        const RecordsAsFiles in = as_files(records);
        const std::vector<InterferenceAggregate> a = aggregate_interference(in.files);
        PythonHeadline h{interference_headline(a, {warm_steps, cold_steps, paper_steps}), py::none(), py::none()};
        h.numbers = to_python(headline_numbers(h.picks, a));
        Json aggregates = Json::array();
        for (const InterferenceAggregate& x : a) aggregates.push_back(aggregate_with_ids(x, in));
        h.aggregates = to_python(aggregates);
        return h;
      },
      py::arg("records"), py::arg("warm_steps"), py::arg("cold_steps"), py::arg("paper_steps"),
      "The interference Headline of these records (as interference_aggregates takes them), chosen once in C++ "
      "(bench/interference/interference_headline.hpp)");
}

}  // namespace hetprobe
