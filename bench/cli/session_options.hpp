// The options every probe's run shares (device, placement, output, progress),
// and the ones only some offer, each registered here once.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "bench/core/mpi_transport.hpp"
#include "bench/core/placement.hpp"
#include "probes/device/host_clock.hpp"

namespace hetprobe::cli {

struct SessionOptions {
  std::string device = "auto";
  std::optional<int> gpu;  // none: the node-local rank's device
  std::string out;
  ClockChoice clock = ClockChoice::auto_pick;
  BindPolicy bind;  // --bind
  bool quiet = false;
  bool resume = false;                        // --resume, where the probe has it (Probe::resumable)
  bool concurrent = false;                    // --concurrent, where the ranks take turns (Probe::ranks_take_turns)
  SingleCopy single_copy = SingleCopy::keep;  // --single-copy, where the probe has it (MPI transfers between ranks)
  bool check_options = false;                 // --check-options: check the options (configure) and exit
};

void add_session_options(CLI::App* command, SessionOptions& options, const std::string& probe);
// --concurrent, for the probes whose ranks take turns (Probe::ranks_take_turns).
void add_concurrent_flag(CLI::App* command, SessionOptions& options);
// --single-copy, for the probes whose numbers are MPI transfers between ranks (halo, interference).
void add_single_copy_option(CLI::App* command, SessionOptions& options);

}  // namespace hetprobe::cli
