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

// The pick's fields as Python reads them (indices into the aggregates).
py::object pick_object(const std::optional<SlowdownPick>& pick) {
  if (!pick) return py::none();
  py::dict d;
  d["point"] = pick->point;
  d["verdict"] = to_string(pick->verdict);
  d["near_ties"] = pick->near_ties;
  return d;
}

}  // namespace

void bind_aggregate(py::module_& m) {
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
        const InterferenceHeadline h = interference_headline(a, {warm_steps, cold_steps, paper_steps});
        py::dict d;
        d["judged"] = h.judged;
        d["warm_steps"] = h.warm_steps;
        d["warm"] = pick_object(h.warm);
        d["cold"] = pick_object(h.cold);
        d["speedup"] = h.speedup ? py::object(py::dict(py::arg("fastest") = h.speedup->fastest,
                                                       py::arg("count") = h.speedup->count))
                                 : py::object(py::none());
        d["worst"] = h.worst ? py::object(py::int_(*h.worst)) : py::object(py::none());
        d["paper_largest"] = h.paper_largest ? py::object(py::int_(*h.paper_largest)) : py::object(py::none());
        std::vector<std::pair<std::string, double>> typical;
        for (const LayoutRatio& t : h.paper_typical) typical.emplace_back(t.layout, t.ratio);
        d["paper_typical"] = typical;
        d["numbers"] = to_python(headline_numbers(h, a));
        Json aggregates = Json::array();
        for (const InterferenceAggregate& x : a) aggregates.push_back(aggregate_with_ids(x, in));
        d["aggregates"] = to_python(aggregates);
        return d;
      },
      py::arg("records"), py::arg("warm_steps"), py::arg("cold_steps"), py::arg("paper_steps"),
      "The interference headline of these records (as interference_aggregates takes them), chosen once in C++ "
      "(bench/interference/interference_headline.hpp): {judged, warm_steps, warm and cold: {point, verdict, "
      "near_ties} or None, speedup: {fastest, count} or None, worst and paper_largest: a point or None, "
      "paper_typical: [(layout, ratio)], numbers: "
      "headline_numbers, aggregates: interference_aggregates' list, which the points index}");
}

}  // namespace hetprobe
