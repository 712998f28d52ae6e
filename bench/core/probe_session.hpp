// The frame of the single-process probes (notify, clock): options every one
// of them has, MPI set-up (one device per rank), input checks agreed by all
// ranks before anything is written, the results file with its header, and
// every rank's records collected into it by rank 0.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "bench/cli/command.hpp"
#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"

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
  // Records rank 0 will measure, for the progress lines' ETA (optional; after configure).
  std::function<std::size_t()> expected_records = nullptr;
  // Bytes of host memory this rank will allocate (optional; after check_ranks):
  // the ranks of a node together must fit what is available.
  std::function<std::uint64_t(const MpiContext&)> host_bytes = nullptr;
};

// Collective: runs the steps in order on every rank, agreeing after each one
// whether any rank threw a usage (or unsupported) Error. Returns false at the
// first step that failed anywhere, after the lowest failing rank printed why
// ("hetprobe PROBE: error: ..."); the caller then ends with exit 2. So a later
// step (creating the results file) runs only once every rank passed the
// earlier ones, and a step may use collectives. Other errors pass through.
bool agreed_steps(const MpiContext& mpi, const std::string& probe, std::initializer_list<std::function<void()>> steps);

// Runs the session as the CLI does (MPI_COMM_WORLD, a results file, tables),
// or captured in this process when env.capture is set (see CommandEnv).
int run_session(const ProbeSession& session, const SessionOptions& options, const std::vector<std::string>& argv,
                const CommandEnv& env);

}  // namespace hetprobe::cli
