// The one frame every probe runs in: options every one of them has, MPI
// set-up (one device per rank), input checks agreed by all ranks before
// anything is written, the results file with its header (new or resumed),
// Ctrl-C and errors, progress lines, and every rank's records collected into
// it by rank 0.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench/cli/command.hpp"
#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"
#include "topology/topology.hpp"

namespace hetprobe::cli {

struct SessionOptions {
  std::string device = "auto";
  int gpu = -1;  // -1: the node-local rank's device
  std::string out;
  std::string clock = "auto";
  std::string bind = "near-gpu";
  bool quiet = false;
  bool resume = false;               // --resume, where the probe has it (ProbeSession::read_done)
  bool concurrent = false;           // --concurrent, where the ranks take turns (ProbeSession::ranks_take_turns)
  std::string single_copy = "keep";  // --single-copy, where the probe has it (MPI transfers between ranks)
  bool check_options = false;        // --check-options: check the options (configure) and exit
};

void add_session_options(CLI::App* command, SessionOptions& options, const std::string& probe);
// --concurrent, for the probes whose ranks take turns (ProbeSession::ranks_take_turns).
void add_concurrent_flag(CLI::App* command, SessionOptions& options);
// --single-copy, for the probes whose numbers are MPI transfers between ranks (halo, interference).
void add_single_copy_option(CLI::App* command, SessionOptions& options);

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
  // Records rank 0 will measure, for the header's planned_records and the
  // progress lines' ETA (optional; after configure, and take_done on --resume).
  std::function<std::size_t()> expected_records = nullptr;
  // Bytes of host memory this rank will allocate (optional; after check_ranks):
  // the ranks of a node together must fit what is available.
  std::function<std::uint64_t(const MpiContext&, const Topology&)> host_bytes = nullptr;
  // The config JSON once check has run, where check completes the config
  // from the device (optional; default: configure's).
  std::function<Json()> device_config = nullptr;
  // What host_bytes are for, in the message when they do not fit (optional;
  // default "this PROBE run (N rank(s) on this node)").
  std::function<std::string(const MpiContext&)> memory_what = nullptr;
  // Takes what the probe holds for the run once the node's memory is checked
  // (after binding: pages land on the bound NUMA node); returns the pinned
  // buffer the header's placement describes, or null (optional).
  std::function<const PinnedBuffer*(Device&, const Topology&, const MpiContext&)> allocate = nullptr;
  // Gives back what allocate took (loads stopped), before MPI ends the run,
  // normally or at an error (optional).
  std::function<void()> release = nullptr;

  // --resume (optional: without it the probe has none). Rank 0: what every
  // rank must know of the records already in the file (text, broadcast).
  std::function<std::string(const ResultsFile& existing, const Device&)> read_done = nullptr;
  // Every rank: takes that text; returns how many items are already done.
  std::function<std::size_t(const std::string& done)> take_done = nullptr;

  // Rank 0, once the header is written: what the probe says before it
  // measures, in place of the frame's device line (optional; `done`: items
  // already in a resumed file).
  std::function<void(const Json& header, const std::filesystem::path& path, std::size_t done)> begin = nullptr;
  // Rank 0, for each record as it is written: a live table's row (optional).
  std::function<void(const Json& record)> on_record = nullptr;
  // A record's progress line, "" for a record that is no progress item
  // (optional; default record_label). Items in all: progress_total, default
  // expected_records.
  std::function<std::string(const Json& record)> progress_label = nullptr;
  std::function<std::size_t()> progress_total = nullptr;
  // Records carry the rank that measured them; off where rank 0 makes every
  // record (interference).
  bool rank_field = true;
  // Each rank measures its own device (notify, clock, bandwidth): one rank
  // after another, rank 0 first, with a barrier between turns, so devices do
  // not disturb each other (a shared link, a shared CPU, the node's power);
  // --concurrent measures on every rank at once. The header says which
  // (ranks_in_turn), and every record when its rank began measuring and when
  // it was finished (rank_started_unix_s, finished_unix_s).
  bool ranks_take_turns = false;
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
