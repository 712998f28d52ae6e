// hetprobe._core's probes: the single-process probes (notify, clock) run in
// this process with the CLI's own option parsing, so Python and the CLI
// accept the same options and produce the same records; and the topology and
// device queries. Records cross as JSON text (the package parses them).
#include <mpi.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>
#include <unistd.h>  // environ

#include <map>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/probe_table.hpp"
#include "bind_common.hpp"
#include "probes/device/device_names.hpp"

namespace py = pybind11;

namespace hetprobe {

namespace {

using cli::SessionCapture;

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

}  // namespace

void bind_probes(py::module_& m) {
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
  m.attr("in_process_probes") = in_process_probes();
}

}  // namespace hetprobe
