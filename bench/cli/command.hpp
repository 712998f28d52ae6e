// How the hetprobe subcommands plug into main(): each adds its CLI11
// subcommand and returns the function main() runs when it is chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/placement.hpp"
#include "bench/core/results.hpp"
#include "probes/device/host_clock.hpp"

namespace hetprobe::cli {

// Runs a parsed subcommand; returns the process exit code. Throws
// hetprobe::Error for main() to report.
using CommandFn = std::function<int(const std::vector<std::string>& argv)>;

// Where a single-process probe's (notify, clock) output goes. The CLI writes a
// results file on MPI_COMM_WORLD; the Python module captures the records in
// its own process instead.
struct SessionCapture {
  Json header;
  std::vector<Json> records;
  // Called after each record is captured (the Python module checks for
  // Ctrl-C there and reports progress); may throw to stop the run.
  std::function<void(const Json& record)> on_record;
};

struct CommandEnv {
  // When set: MPI_COMM_SELF (the caller has initialised MPI), no file, no
  // tables, no progress lines; the header and records land here, errors are
  // thrown (never MPI_Abort), and the process's binding is restored after.
  SessionCapture* capture = nullptr;
};

// A probe's subcommand (probe_table.hpp): its options, and a run of it
// through the session frame.
struct ProbeEntry;
CommandFn add_probe_command(CLI::App& app, const ProbeEntry& probe, const CommandEnv& env = {});
// The subcommands that are not probes.
CommandFn add_devices_command(CLI::App& app);
CommandFn add_show_command(CLI::App& app);
CommandFn add_topo_command(CLI::App& app);
CommandFn add_model_command(CLI::App& app);  // bench/model/model_command.cpp

// `hetprobe topo --json` (this machine, or a saved hwloc XML file when
// `topology_file` is not empty) and `hetprobe devices --json`, as JSON.
Json topology_report(const std::string& topology_file);
Json devices_report();

// Options several subcommands offer, each registered here once, so its
// name, help, default and range check are the same everywhere.
// --bind, as every probe that places ranks offers it.
void add_bind_option(CLI::App* command, BindPolicy& bind);
void add_device_option(CLI::App* command, std::string& device);
// --gpu; not given: the rank's node-local device.
void add_gpu_option(CLI::App* command, std::optional<int>& gpu);
void add_out_option(CLI::App* command, std::string& out, const std::string& help);
void add_clock_option(CLI::App* command, ClockChoice& clock);

void add_quiet_flag(CLI::App* command, bool& quiet);
void add_reps_option(CLI::App* command, int& reps, const std::string& help);
void add_warmup_option(CLI::App* command, int& warmup, const std::string& help);
void add_timeout_option(CLI::App* command, double& timeout_s);
// --size, the bytes of a probe's pinned host buffer as text; size_option_bytes
// reads it: a size (sizes.hpp) that the node's available memory holds, checked
// before anything is opened.
void add_size_option(CLI::App* command, std::string& size, const std::string& help);
std::uint64_t size_option_bytes(const std::string& size);
// --seed of the rounds' shuffled orders, as text (parse_seed reads it); not
// given, rank 0 draws one (shared_random_seed). Its help says so, unless the
// probe words it otherwise.
void add_seed_option(CLI::App* command, std::optional<std::string>& seed);
void add_seed_option(CLI::App* command, std::optional<std::string>& seed, const std::string& help);

// True unless a launcher (mpirun, srun) says this process is not rank 0: for
// messages every rank would otherwise print once each.
bool first_launched_rank();

}  // namespace hetprobe::cli
