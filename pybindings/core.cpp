// hetprobe._core: the compiled half of the Python package. It runs the
// single-process probes (notify, clock) in this process with the CLI's own
// option parsing, so Python and the CLI accept the same options and produce
// the same records, and it answers topology and device queries. Records cross
// as JSON text (the package parses them); hetprobe::Error becomes the
// package's exception for its kind (hetprobe/errors.py).
#include <dlfcn.h>
#include <hwloc.h>
#include <mpi.h>
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>  // environ

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "base/effect.hpp"
#include "base/errors.hpp"
#include "base/headline_choice.hpp"
#include "base/number_text.hpp"
#include "bench/bandwidth/bandwidth.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/error_record.hpp"
#include "bench/cli/probe_table.hpp"
#include "bench/core/launches.hpp"
#include "bench/core/message_path.hpp"
#include "bench/core/record_upgrade.hpp"
#include "bench/core/run_header.hpp"
#include "bench/core/table.hpp"
#include "bench/gpus/gpu_metrics.hpp"
#include "bench/gpus/node_verdict.hpp"
#include "bench/halo/halo.hpp"
#include "bench/halo/halo_layout.hpp"
#include "bench/halo/halo_parts.hpp"
#include "bench/halo/halo_phases.hpp"
#include "bench/interference/interference.hpp"
#include "bench/interference/layout.hpp"
#include "bench/model/model_document.hpp"
#include "bench/notify/notify.hpp"
#include "bind_aggregate.hpp"
#include "probes/device/device_names.hpp"
#include "probes/load/load_names.hpp"

namespace py = pybind11;
using namespace hetprobe;
using cli::SessionCapture;

namespace {

const char* exception_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return "UsageError";
    case ErrorKind::device: return "DeviceError";
    case ErrorKind::timeout: return "ProbeTimeout";
    case ErrorKind::mpi: return "MPIError";
    case ErrorKind::io: return "ResultsFileError";
    case ErrorKind::check: return "CheckFailed";
    case ErrorKind::interrupted: return "Interrupted";
    case ErrorKind::unsupported: return "Unsupported";
  }
  return "HetprobeError";
}

void raise_as(const char* name, const std::string& message) {
  py::object type = py::module_::import("hetprobe.errors").attr(name);
  PyErr_SetString(type.ptr(), message.c_str());
}

// Python loads this module with RTLD_LOCAL, so hwloc's plugins (PCI
// discovery, the libxml XML reader), which hwloc dlopens and which expect
// libhwloc's symbols to be global, would fail to load. Promote libhwloc.
void make_hwloc_global() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&hwloc_topology_init), &info) != 0 && info.dli_fname != nullptr)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}

// This process's environment, as the C library holds it (Python's os.environ
// is a copy taken at start-up, which children started without env= never see).
std::map<std::string, std::string> c_environment() {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return vars;
}

// Open MPI's singleton init writes its launcher plumbing into the process's
// environment (PMIX_SERVER_URI*, PMIX_NAMESPACE, OMPI_MCA_ess=singleton, ...),
// which every child inherits: an mpirun started from this process afterwards
// (a notebook's `!mpirun`, a subprocess without env=) takes itself for part of
// this singleton's job and exits 1 without a word. Init reads them; they are
// taken back once it returns.
void restore_environment(const std::map<std::string, std::string>& before) {
  for (const auto& [name, value] : c_environment()) {
    const auto was = before.find(name);
    if (was == before.end()) unsetenv(name.c_str());
    else if (was->second != value) setenv(name.c_str(), was->second.c_str(), 1);
  }
}

// MPI once per process, singleton (the probes run on MPI_COMM_SELF); finalised
// at interpreter exit only if this module initialised it (mpi4py may have).
void ensure_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  int provided = 0;
  const std::map<std::string, std::string> before = c_environment();
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  restore_environment(before);
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }));
}

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

// JSON (an nlohmann value) as the Python object json.loads makes of it.
py::object to_python(const Json& j) {
  return py::module_::import("json").attr("loads")(j.dump(-1, ' ', false, Json::error_handler_t::replace));
}

// A run's results files, read by the bounded reader (regular files only).
RunFiles read_run(const std::vector<std::string>& paths) {
  RunFiles files;
  for (const std::string& p : paths) files.push_back(read_results(p));
  return files;
}

// The files of a run to be judged whole (`what`: "--baseline", "RUN_DIR"):
// one with no records, or cut short (its last line incomplete or
// unparsable), is named and refused, never skipped in silence, since a
// missing launch would narrow the spread a check allows or hide the launch
// that is off.
RunFiles read_whole(const std::vector<std::string>& paths, const std::string& what) {
  RunFiles files = read_run(paths);
  for (const ResultsFile& f : files) {
    if (f.records.empty())
      throw usage_error(what + ": " + f.path.string() +
                        " holds no records (empty, cut or corrupt): the files of a run that is checked, and of its "
                        "baselines, must be whole; remove it or give another run");
    if (f.truncated_tail)
      throw usage_error(what + ": " + f.path.string() +
                        " ends in an incomplete or unparsable line (cut or corrupt): the files of a run that is "
                        "checked, and of its baselines, must be whole; remove it or give another run");
  }
  return files;
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

// The long options of a probe's subcommand as CLI11 holds them ("--check-after"),
// in their order: what Python's keywords are, read from the parser itself.
std::vector<std::string> probe_options(const std::string& probe) {
  const cli::ProbeEntry* entry = cli::find_probe(probe);
  if (entry == nullptr) throw Error(ErrorKind::usage, "no probe named '" + probe + "': see `hetprobe --help`");
  CLI::App app;
  (void)cli::add_probe_command(app, *entry);
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_subcommand(entry->key)->get_options())
    for (const std::string& name : o->get_lnames()) names.push_back("--" + name);
  return names;
}

// The probes that run in one process (probe_table.hpp), by name.
std::vector<std::string> in_process_probes() {
  std::vector<std::string> names;
  for (const cli::ProbeEntry& probe : cli::probe_table())
    if (probe.in_process) names.emplace_back(probe.key);
  return names;
}

std::string in_process_names() {
  std::string text;
  for (const std::string& name : in_process_probes()) text += (text.empty() ? "" : " or ") + name;
  return text;
}

// The CLI's parser with the in-process probes, writing into `capture`.
struct InProcessApp {
  CLI::App app{"hetprobe (in process)"};
  std::map<std::string, cli::CommandFn> commands;
  explicit InProcessApp(SessionCapture* capture) {
    app.require_subcommand(1);
    const cli::CommandEnv env{capture};
    for (const cli::ProbeEntry& probe : cli::probe_table())
      if (probe.in_process) commands[probe.key] = cli::add_probe_command(app, probe, env);
  }
};

// Runs `argv` (e.g. ["notify", "--parts", "roundtrip"]) and calls
// on_record(json_text) with the header, then with each record as it is
// measured. Ctrl-C stops the run at the next record with KeyboardInterrupt.
void run(const std::vector<std::string>& argv, const std::function<void(const std::string&)>& on_record) {
  if (argv.empty()) throw Error(ErrorKind::usage, "no probe given: " + in_process_names());
  SessionCapture capture;
  InProcessApp in(&capture);
  std::vector<const char*> args{"hetprobe"};
  for (const auto& a : argv) args.push_back(a.c_str());
  try {
    in.app.parse(static_cast<int>(args.size()), const_cast<char**>(args.data()));
  } catch (const CLI::CallForHelp&) {
    throw Error(ErrorKind::usage, "--help: call hetprobe.help(\"" + argv.front() + "\") for the options");
  } catch (const CLI::ParseError& e) {
    throw Error(ErrorKind::usage, e.what());
  }
  ensure_mpi();
  bool header_sent = false;
  capture.on_record = [&](const Json& record) {
    py::gil_scoped_acquire gil;
    if (!header_sent && on_record) on_record(capture.header.dump());
    header_sent = true;
    if (on_record) on_record(record.dump());
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  std::vector<std::string> command_line{"hetprobe"};
  command_line.insert(command_line.end(), argv.begin(), argv.end());
  {
    py::gil_scoped_release release;
    in.commands.at(in.app.get_subcommands().front()->get_name())(command_line);
  }
  if (!header_sent && on_record) on_record(capture.header.dump());  // a probe that measured nothing
}

std::string help(const std::string& command) {
  InProcessApp in(nullptr);
  for (CLI::App* sub : in.app.get_subcommands({}))
    if (sub->get_name() == command) return sub->help();
  throw Error(ErrorKind::usage, "no in-process probe named '" + command + "': " + in_process_names());
}

// A headline point as Python gives it: (ratio, (low, high) or None, effect name or None).
using PyJudgedPoint = std::tuple<double, std::optional<std::pair<double, double>>, std::optional<std::string>>;

std::vector<JudgedPoint> judged_points(const std::vector<PyJudgedPoint>& points) {
  std::vector<JudgedPoint> out;
  for (const auto& [ratio, ci95, effect] : points) {
    JudgedPoint p{ratio, std::nullopt, std::nullopt};
    if (ci95) p.ci95 = Interval{ci95->first, ci95->second};
    if (effect) p.effect = kEffectNames.parse(*effect);
    out.push_back(p);
  }
  return out;
}

// The interference headline's choices (base/headline_choice.hpp) as plain Python values.
void add_headline_choices(py::module_& m) {
  m.def(
      "choose_slowdown",
      [](const std::vector<PyJudgedPoint>& points) -> py::object {
        const std::optional<SlowdownChoice> choice = choose_slowdown(judged_points(points));
        if (!choice) return py::none();
        py::dict d;
        d["chosen"] = choice->chosen;
        d["verdict"] = to_string(choice->verdict);
        d["near_ties"] = choice->near_ties;
        return d;
      },
      py::arg("points"),
      "The point the interference headline names, of points (ratio, (low, high) or None, effect or None): "
      "{chosen: index, verdict: 'claimed', 'within_noise' or 'no_interval', near_ties: the indices of the other "
      "claimed slowdowns whose interval reaches the chosen one's, largest first}; None for no points "
      "(base/headline_choice.hpp)");
  m.def(
      "choose_speedup",
      [](const std::vector<PyJudgedPoint>& points) -> py::object {
        const std::optional<SpeedupChoice> up = choose_speedup(judged_points(points));
        if (!up) return py::none();
        py::dict d;
        d["fastest"] = up->fastest;
        d["count"] = up->count;
        return d;
      },
      py::arg("points"),
      "The claimed speed-ups of points as choose_slowdown takes them: {fastest: the index of the smallest ratio, "
      "count}; None where none claims one (base/headline_choice.hpp)");
  m.def(
      "largest_ratio", [](const std::vector<double>& ratios) { return largest_ratio(ratios); }, py::arg("ratios"),
      "The index of the largest ratio (the first of equals), None for none: the worst median slowdown where there "
      "are no intervals (base/headline_choice.hpp)");
  m.def(
      "fastest_time", [](const std::vector<double>& medians) { return fastest_time(medians); }, py::arg("medians_ns"),
      "The index of the smallest time (the first of equals), None for none: the notify headline's fastest flag "
      "order (base/headline_choice.hpp)");
  m.def("most_launched_parts", &most_launched_parts, py::arg("launches"),
        "The indices of the parts measured in the most launches, each part given as its points' launch counts; "
        "empty parts are none (base/headline_choice.hpp)");
  m.def(
      "typical_ratio_per_layout",
      [](const std::vector<std::pair<std::string, double>>& points) {
        std::vector<LayoutRatio> in;
        for (const auto& [layout, ratio] : points) in.push_back({layout, ratio});
        std::vector<std::pair<std::string, double>> out;
        for (const LayoutRatio& t : typical_ratio_per_layout(in)) out.emplace_back(t.layout, t.ratio);
        return out;
      },
      py::arg("points"),
      "[(layout, typical ratio)] of points (layout, ratio to SSB): each layout's median ratio over sizes and "
      "access, in name order (base/headline_choice.hpp)");
  m.def("triad_share_percent", &triad_share_percent, py::arg("traffic_gbs"), py::arg("triad_gbs"),
        "A point's GPU traffic during the sends as a percentage of the best STREAM triad; None without a finite "
        "traffic or a triad above 0 (base/headline_choice.hpp)");
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "hetprobe's compiled probes; use the hetprobe package, not this module";
  make_hwloc_global();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      raise_as(exception_name(e.kind()), user_message(e));
    }
  });
  bind_aggregate(m, &to_python);  // a run's launches and aggregates (bind_aggregate.cpp)
  m.def("run", &run, py::arg("argv"), py::arg("on_record") = nullptr,
        "Run an in-process probe (in_process_probes) with CLI arguments; on_record(json) gets the header, then each "
        "record");
  m.def("help", &help, py::arg("command"), "The CLI help text of an in-process probe");
  m.def(
      "topology",
      [](const std::string& file) {
        return cli::topology_report(file).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      },
      py::arg("topology_file") = "", "`hetprobe topo --json` as JSON text (this machine, or a saved hwloc XML file)");
  m.def("devices", [] { return cli::devices_report().dump(); }, "`hetprobe devices --json` as JSON text");
  m.def(
      "device_choices",
      [] {
        std::vector<std::string> names{"auto"};
        names.insert(names.end(), std::begin(kBackendNames), std::end(kBackendNames));
        return names;
      },
      "--device's names: auto and every backend hetprobe has (built into this module or not)");
  m.def(
      "report_tables",
      [](const std::string& text, const std::string& where) {
        const Json tables = report_json(results_report(parse_results(where, text)));
        return py::module_::import("json").attr("loads")(tables.dump(-1, ' ', false, Json::error_handler_t::replace));
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
        return py::module_::import("json").attr("loads")(tables.dump(-1, ' ', false, Json::error_handler_t::replace));
      },
      py::arg("launches"),
      "The table `hetprobe show --pool --format json` prints of launches of one command, each (text, where): "
      "{table: [row]}, pooled by the probe's own code (interference_launches, halo_launches)");
  m.def(
      "node_model",
      [](const std::string& run, const std::string& halo) {
        return node_model_json(run, halo).dump(-1, ' ', false, Json::error_handler_t::replace);
      },
      py::arg("run"), py::arg("halo") = "",
      "`hetprobe model RUN [--halo FILE] --format json` as JSON text: the node model fitted from a characterize "
      "run (or an interference file) and its predictions of a halo run of the same node "
      "(bench/model/model_document.hpp)");
  m.def(
      "check_results_file", [](const std::string& path) { check_results(read_results(path)); }, py::arg("path"),
      "The checks `hetprobe show` makes of a results file, run by run: UsageError naming FILE:LINE and the "
      "field of the first malformed record");
  // The judgement of a ratio and the pooling of launches, computed once in
  // C++ (base/effect.hpp) for the tables, the headline and the plots.
  m.def(
      "classify_ratio", [](double low, double high) { return std::string(to_string(classify_ratio({low, high}))); },
      py::arg("low"), py::arg("high"),
      "'slowdown', 'speedup' or 'none': what a ratio's 95% interval [low, high] claims (margin effect_margin)");
  const auto pooled_dict = [](const PooledRatio& p) {
    py::dict d;
    d["median"] = p.median;
    d["ci95"] = p.ci95 ? py::object(py::make_tuple(p.ci95->low, p.ci95->high)) : py::object(py::none());
    d["effect"] = p.ci95 ? py::object(py::str(to_string(classify_ratio(*p.ci95)))) : py::object(py::none());
    d["min"] = p.min;
    d["max"] = p.max;
    d["launches"] = p.launches;
    d["degrees_of_freedom"] = p.degrees_of_freedom;
    return d;
  };
  m.def(
      "pool_launch_ratios",
      [pooled_dict](const std::vector<double>& ratios) { return pooled_dict(pool_launch_ratios(ratios)); },
      py::arg("ratios"),
      "A ratio pooled over launches, its interval from its own spread: {median, ci95 (low, high) or None under 3 "
      "launches, effect, min, max, launches, degrees_of_freedom}; ValueError for no ratio or one not above 0");
  m.def(
      "pool_launch_points",
      [pooled_dict](const std::vector<std::vector<double>>& points) {
        py::list out;
        for (const PooledRatio& p : pool_launch_points(points)) out.append(pooled_dict(p));
        return out;
      },
      py::arg("points"),
      "Points measured side by side over the same launches (one size of one command), each a list of its "
      "launches' ratios: pool_launch_ratios' dict for each, the launches' variance pooled over the points "
      "(base/effect.hpp)");
  add_headline_choices(m);  // what the headline makes of the judged points
  // A halo part size's text form, written once in C++ (bench/halo/halo_parts.hpp) for the tables,
  // the setup labels and the notebook.
  m.def(
      "part_size_text",
      [](const std::variant<std::uint64_t, std::string>& parts) {
        const Json record{{"parts", std::visit([](const auto& v) { return Json(v); }, parts)}};
        return to_string(part_size_at({record, "a halo record"}, "parts"));
      },
      py::arg("parts"),
      "A halo record's parts (its JSON form: \"auto\", \"whole\" or bytes) as the tables show them: \"auto\", "
      "\"whole\" or a size like \"32KiB\"; UsageError for anything else");
  // The node verdict, computed once in C++ (bench/gpus/node_verdict.hpp): characterize, `hetprobe
  // check` and the report read it from here.
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
      metrics.append(d);
    }
    m.attr("gpu_metrics") = metrics;
  }
  m.attr("effect_margin") = kEffectMargin;
  m.attr("schema_version") = kSchemaVersion;  // what fresh files are written as, and upgraded to
  m.attr("version") = hetprobe_version();
  m.attr("git_revision") = hetprobe_git_revision();
  m.attr("in_process_probes") = in_process_probes();
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
  // What makes a halo message long (its stage's rate is held to the link's): the
  // probe's threshold, for files from before its records carried it.
  m.attr("halo_long_message_bytes") = kHaloLongMessageBytes;
  m.def(
      "summarize",
      [](const std::vector<double>& values) {
        return py::module_::import("json").attr("loads")(summary_json(values).dump());
      },
      py::arg("values"),
      "{n, min, p10, median, p90, p99, max, mean, stddev} of the values, as every record's summaries are computed "
      "(docs/metrics.md); None for no values");
  m.def("enum_names", &enum_names, "Every enum table's names: {what: {names, user}} (base/enum_table.hpp)");
  m.def("probe_options", &probe_options, py::arg("probe"),
        "The long options of `hetprobe PROBE`, from the CLI's own parser (--help included)");
  m.def(
      "probes",
      [] {
        std::vector<std::string> names;
        for (const cli::ProbeEntry& p : cli::probe_table()) names.emplace_back(p.key);
        return names;
      },
      "Every probe's name, as the CLI's subcommands");
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
  m.def(
      "load_rate_value",
      [](const std::string& label) {
        const LoadRate rate = parse_load_rate(label);
        return std::pair{rate.fraction, rate.gbs};
      },
      py::arg("label"),
      "A --load-rate item or a record's load_rate label as (fraction, GB/s per GPU), one of them 0: equal rates "
      "give equal pairs; UsageError for anything else");
  m.def(
      "is_full_load_rate", [](const std::string& label) { return parse_load_rate(label).full(); }, py::arg("label"),
      "Whether a load_rate label is the load's full rate (\"1\", \"100%\", \"1.0\")");
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
