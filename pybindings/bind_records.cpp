// hetprobe._core's records: the schema version, every enum table's names,
// the error kinds, and what every reader does to a record before reading it
// (upgrade, schema check, launch identity, the message path).
#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "base/effect.hpp"
#include "base/errors.hpp"
#include "base/headline_choice.hpp"
#include "bench/bandwidth/bandwidth.hpp"
#include "bench/cli/error_record.hpp"
#include "bench/core/launches.hpp"
#include "bench/core/message_path.hpp"
#include "bench/core/record_upgrade.hpp"
#include "bench/core/run_header.hpp"
#include "bench/core/table.hpp"
#include "bench/halo/halo.hpp"
#include "bench/interference/interference.hpp"
#include "bench/interference/layout.hpp"
#include "bench/notify/notify.hpp"
#include "bind_common.hpp"
#include "probes/load/load_names.hpp"

namespace py = pybind11;

namespace hetprobe {

namespace {

// Every enum table's names (base/enum_table.hpp), by what the values are:
// {"names": every name, "user": those a user may give}. One owner: Python's
// lists and the schema's enums are checked against these.
template <class E, std::size_t N>
void add_enum(py::dict& out, const EnumTable<E, N>& table) {
  py::list names, user;
  for (const auto& n : table.names) {
    names.append(n.name);
    if (n.use != EnumUse::internal) user.append(n.name);
  }
  py::dict entry;
  entry["names"] = names;
  entry["user"] = user;
  out[table.what] = entry;
}

py::dict enum_names() {
  py::dict out;
  add_enum(out, kLoadKindNames);
  add_enum(out, kAccessNames);
  add_enum(out, kMemoryOrderNames);
  add_enum(out, kFlagPlacementNames);
  add_enum(out, kHostCoherenceNames);
  add_enum(out, kLaunchMechanismNames);
  add_enum(out, kEffectNames);
  add_enum(out, kHeadlineVerdictNames);
  add_enum(out, kFlagSpacingNames);
  add_enum(out, kNotifyPartNames);
  add_enum(out, kHaloVariantNames);
  add_enum(out, kHaloSignalNames);
  add_enum(out, kHaloStagingNames);
  add_enum(out, kHaloPeersNames);
  add_enum(out, kHaloReceiveWaitNames);
  add_enum(out, kHaloTimelineNames);
  add_enum(out, kBandwidthPassNames);
  add_enum(out, kTableFormatNames);
  add_enum(out, kSendModeNames);
  add_enum(out, kWriterSideNames);
  add_enum(out, kPayloadWriterNames);
  add_enum(out, kLayoutNames);
  return out;
}

}  // namespace

void bind_records(py::module_& m) {
  m.attr("schema_version") = kSchemaVersion;  // what fresh files are written as, and upgraded to
  m.attr("version") = hetprobe_version();
  m.attr("git_revision") = hetprobe_git_revision();
  m.def("enum_names", &enum_names, "Every enum table's names: {what: {names, user}} (base/enum_table.hpp)");
  m.def(
      "error_kinds",
      [] {
        py::dict kinds;
        for (ErrorKind k : every_error_kind()) {
          py::dict d;
          d["exception"] = exception_name(k);
          d["exit_code"] = exit_code_for(k);
          kinds[to_string(k)] = d;
        }
        return kinds;
      },
      "Every kind of hetprobe::Error: {kind: {exception (a hetprobe.errors class), exit_code}}");
  m.attr("error_file_variable") = cli::kErrorFileVariable;
  m.def(
      "message_path",
      [](const std::string& header) {
        const Json h = Json::parse(header);
        const MessagePath p = message_path(RecordRef{h, "header"});
        return py::make_tuple(p.across_hosts, describe(p));
      },
      py::arg("header"),
      "(across hosts, the sentence `show` prints) of how MPI carries a message from rank 0 to rank 1, from a "
      "header (JSON text): bench/core/message_path.hpp");
  m.def(
      "launch_identity", [](const std::string& header) { return launch_identity(Json::parse(header)).dump(); },
      py::arg("header"),
      "What makes runs launches of one command (JSON text, keys sorted) of a header (JSON text): the rule "
      "`hetprobe show --pool` and Results.interference_ratios group by "
      "(bench/core/launches.hpp)");
  m.def(
      "upgrade_records",
      [](const std::string& records) {
        std::vector<Json> v = Json::parse(records).get<std::vector<Json>>();
        upgrade_records(v);
        return to_python(Json(v));
      },
      py::arg("records"),
      "One file's records (a JSON array of them, in order) in the current form: the upgrade of older "
      "schema versions that every reader of results makes (bench/core/record_upgrade.hpp)");
  m.def(
      "schema_problem", [](const std::string& header) { return schema_problem(Json::parse(header)); },
      py::arg("header"),
      "What is wrong with a header's schema (JSON text), or \"\": the check every reader of results makes "
      "before any upgrade (bench/core/record_upgrade.hpp)");
  // Load rates are equal by value, never by spelling ("50%" is "0.5"): the one parser
  // (bench/load/load_options.hpp) gives Python the value it compares and the full-rate test.
  py::class_<LoadRate>(m, "LoadRate",
                       "A load's rate, parsed once in C++: label (as given), fraction (> 0 for a fraction of "
                       "the full rate), gbs (> 0 for GB/s per GPU), full; equal by value, never by spelling")
      .def_readonly("label", &LoadRate::label)
      .def_readonly("fraction", &LoadRate::fraction)
      .def_readonly("gbs", &LoadRate::gbs)
      .def_property_readonly("full", &LoadRate::full)
      .def(py::self == py::self)
      .def("__hash__", [](const LoadRate& r) { return py::hash(py::make_tuple(r.fraction, r.gbs)); })
      .def("__str__", [](const LoadRate& r) { return r.label; })
      .def("__repr__", [](const LoadRate& r) { return "LoadRate('" + r.label + "')"; });
  m.def("parse_load_rate", &parse_load_rate, py::arg("label"),
        "A --load-rate item or a record's load_rate label as a LoadRate (\"50%\" equals \"0.5\"); UsageError for "
        "anything else");
}

}  // namespace hetprobe
