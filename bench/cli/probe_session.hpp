// The frame of the single-process probes (notify, clock): options every one
// of them has, MPI set-up (one device per rank), input checks agreed by all
// ranks before anything is written, the results file with its header, and
// every rank's records collected into it by rank 0.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "hetprobe/device.hpp"
#include "hetprobe/host_clock.hpp"
#include "hetprobe/mpi_context.hpp"
#include "hetprobe/results.hpp"
#include "command.hpp"

namespace hetprobe::cli {

struct SessionOptions {
  std::string device = "auto";
  int gpu = -1;  // -1: the node-local rank's device
  std::string out;
  std::string clock = "auto";
  std::string bind = "near-gpu";
  bool quiet = false;
};

void add_session_options(CLI::App* command, SessionOptions& options, const std::string& probe);

struct ProbeSession {
  std::string probe;
  // Builds the probe's config JSON; throws a usage Error on bad input. Runs on every rank.
  std::function<Json()> configure;
  // Checks the config against the opened device; throws a usage Error (optional).
  std::function<void(const Device&)> check;
  // Measures; every record goes to `sink` (rank 0 writes its own at once).
  // Collective probes (halo) use `mpi`; the others measure their own device.
  std::function<void(Device&, const HostClock&, const MpiContext& mpi, const RecordSink& sink)> measure;
  // Prints the human-readable table from every rank's records (rank 0).
  std::function<void(const Json& header, const std::vector<Json>& records)> print;
  // Checks the config against the ranks (collective probes); throws a usage Error (optional).
  std::function<void(const MpiContext&)> check_ranks = nullptr;
};

// Runs the session as the CLI does (MPI_COMM_WORLD, a results file, tables),
// or captured in this process when env.capture is set (see CommandEnv).
int run_session(const ProbeSession& session, const SessionOptions& options, const std::vector<std::string>& argv,
                const CommandEnv& env);

}  // namespace hetprobe::cli
