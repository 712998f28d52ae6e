// How the hetprobe subcommands plug into main(): each adds its CLI11
// subcommand and returns the function main() runs when it is chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace hetprobe::cli {

// Runs a parsed subcommand; returns the process exit code. Throws
// hetprobe::Error for main() to report.
using CommandFn = std::function<int(const std::vector<std::string>& argv)>;

CommandFn add_interference_command(CLI::App& app);
CommandFn add_devices_command(CLI::App& app);
CommandFn add_bandwidth_command(CLI::App& app);
CommandFn add_show_command(CLI::App& app);
CommandFn add_notify_command(CLI::App& app);
CommandFn add_clock_command(CLI::App& app);
CommandFn add_topo_command(CLI::App& app);

// --bind, as every probe that places ranks offers it.
void add_bind_option(CLI::App* command, std::string& bind);

// True unless a launcher (mpirun, srun) says this process is not rank 0: for
// messages every rank would otherwise print once each.
bool first_launched_rank();

}  // namespace hetprobe::cli
