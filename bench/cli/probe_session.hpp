// The one frame every probe runs in: MPI set-up (one device per rank), input
// checks agreed by all ranks before anything is written, the results file
// with its header (new or resumed), Ctrl-C and errors, progress lines, and
// every rank's records collected into it by rank 0. The probe (probe.hpp)
// says what to measure; the frame runs it.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "bench/cli/command.hpp"
#include "bench/cli/probe.hpp"
#include "bench/core/mpi_context.hpp"

namespace hetprobe::cli {

// Collective: runs the steps in order on every rank, agreeing after each one
// whether any rank threw a usage (or unsupported) Error. Returns false at the
// first step that failed anywhere, after the lowest failing rank printed why
// ("hetprobe PROBE: error: ..."); the caller then ends with exit 2. So a later
// step (creating the results file) runs only once every rank passed the
// earlier ones, and a step may use collectives. Other errors pass through.
bool agreed_steps(const MpiContext& mpi, const std::string& probe, std::initializer_list<std::function<void()>> steps);

// Runs `probe` (its options parsed) as the CLI does (MPI_COMM_WORLD, a results
// file, tables), or captured in this process when env.capture is set (see
// CommandEnv). `key`: its name in messages and the default file name.
int run_session(Probe& probe, const std::string& key, const std::vector<std::string>& argv, const CommandEnv& env);

}  // namespace hetprobe::cli
