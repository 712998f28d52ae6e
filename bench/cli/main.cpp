// hetprobe: how the CPU and the GPU of a node get in each other's way, and how
// fast they can tell each other things. One subcommand per probe.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "base/errors.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/error_record.hpp"
#include "bench/cli/probe_table.hpp"
#include "bench/core/run_header.hpp"

namespace {

// The main job's commands, which the Python package runs
// (pybindings/hetprobe/cli.py dispatches them before it runs this executable):
// named here, so that `hetprobe --help` lists every command in one place, and
// a call of this executable by one of them says where it is.
struct PackageCommand {
  const char* name;
  const char* what;
};
constexpr PackageCommand kPackageCommands[] = {
    {"characterize", "The main job: run every probe on this node and write a run directory with a report"},
    {"report", "Write (or rewrite) the report of a run directory: hetprobe report DIR"},
    {"merge", "Combine results files (many nodes, pairs or runs) into one dataset"},
    {"check", "Compare a run directory with a known-good node's, GPU by GPU: hetprobe check DIR --baseline GOOD"},
};

hetprobe::cli::CommandFn add_package_command(CLI::App& app, const PackageCommand& command) {
  CLI::App* c = app.add_subcommand(command.name, std::string(command.what) + " (the Python package's command)");
  c->prefix_command();  // its options are the package's to check
  c->fallthrough(false);
  const std::string name = command.name;
  return [name](const std::vector<std::string>&) -> int {
    throw hetprobe::usage_error(name + " is a command of the hetprobe Python package, which this executable does " +
                                "not run: `python -m hetprobe " + name + " ...`, or `hetprobe " + name +
                                " ...` where the package is installed (README.md)");
  };
}

// The first option of `command` given an empty value ('' or --opt=): no
// option takes one, so it is refused as any bad value is (an empty --out is
// not "the default file", an empty --table not "every table").
const CLI::Option* given_empty(const CLI::App& command) {
  for (const CLI::Option* o : command.get_options())
    if (o->get_expected_max() != 0 && o->count() > 0)  // a flag takes no value
      for (const std::string& value : o->results())
        if (value.empty()) return o;
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hetprobe;
  CLI::App app{"hetprobe " + hetprobe_version() + " (" + hetprobe_git_revision() +
                   "): CPU/GPU interference and notification probes for HPC nodes.\n"
                   "Each subcommand is one probe; `hetprobe SUBCOMMAND --help` explains its options.",
               "hetprobe"};  // the name help shows, not argv[0] (the Python command runs us from inside its package)
  app.set_version_flag("--version", "hetprobe " + hetprobe_version() + " " + hetprobe_git_revision());
  app.require_subcommand(1);
  bool debug = false;
  app.add_flag("--debug", debug, "Error messages also name the source line that raised them (or HETPROBE_DEBUG=1)");
  app.fallthrough();  // --debug after the subcommand too; set before the subcommands, which inherit it
  std::map<std::string, cli::CommandFn> commands;
  for (const cli::ProbeEntry& probe : cli::probe_table()) commands[probe.key] = cli::add_probe_command(app, probe);
  commands["topo"] = cli::add_topo_command(app);
  commands["devices"] = cli::add_devices_command(app);
  commands["show"] = cli::add_show_command(app);
  commands["model"] = cli::add_model_command(app);
  for (const PackageCommand& c : kPackageCommands) commands[c.name] = add_package_command(app, c);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const bool info = e.get_exit_code() == 0;  // --help, --version
    if (info || cli::first_launched_rank()) app.exit(e);
    if (!info) cli::record_error(ErrorKind::usage, e.what());
    return info ? 0 : 2;
  }
  if (const CLI::Option* o = given_empty(*app.get_subcommands().front())) {
    const std::string what = o->get_name() + " '': an empty value; give one, or leave " + o->get_name() +
                             " out for its default";
    if (cli::first_launched_rank()) std::fprintf(stderr, "hetprobe: usage error: %s\n", what.c_str());
    cli::record_error(ErrorKind::usage, what);
    return 2;
  }
  if (debug) setenv("HETPROBE_DEBUG", "1", 1);  // read by user_message(), here and in the probes' own reports
  const std::vector<std::string> args(argv, argv + argc);
  try {
    const int code = commands.at(app.get_subcommands().front()->get_name())(args);
    // A table printed into a full disk or a closed pipe is not printed: say so.
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::fprintf(stderr, "hetprobe: io error: cannot write to standard output: %s\n", std::strerror(errno));
      return code == 0 ? 1 : code;
    }
    return code;
  } catch (const Error& e) {
    std::fprintf(stderr, "hetprobe: %s error: %s\n", to_string(e.kind()), user_message(e).c_str());
    cli::record_error(e.kind(), user_message(e));
    return exit_code_for(e.kind());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetprobe: error: %s\n", e.what());
    return 1;
  }
}
