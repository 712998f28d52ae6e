#include "bench/cli/session_options.hpp"

#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/core/mpi_transport.hpp"

namespace hetprobe::cli {

void add_session_options(CLI::App* c, SessionOptions& o, const std::string& probe) {
  add_device_option(c, o.device);
  add_gpu_option(c, o.gpu);
  add_out_option(c, o.out,
                 "Results file, JSON Lines (default: hetprobe-" + probe + "-YYYYMMDDTHHMMSSZ.jsonl, the UTC time)");
  add_clock_option(c, o.clock);
  add_bind_option(c, o.bind);
  add_quiet_flag(c, o.quiet);
  c->add_flag("--check-options", o.check_options,
              "Only check the options (exit code 0, or 2 with the message): nothing is measured or written, and "
              "what needs the device or the ranks is checked when the run starts (hetprobe characterize checks "
              "each step's options so before it runs any)");
}

void add_concurrent_flag(CLI::App* c, SessionOptions& o) {
  c->add_flag("--concurrent", o.concurrent,
              "Measure on every rank at once; without it ranks measure one after another (rank 0 first), so "
              "devices do not disturb each other");
}

void add_single_copy_option(CLI::App* c, SessionOptions& o) {
  add_enum_option(c, "--single-copy", o.single_copy, kSingleCopyNames,
                  "Open MPI's single-copy mechanism for large messages between ranks of a node: keep (what Open MPI "
                  "and its environment choose), none (copy in, copy out through shared memory), cma, xpmem or knem; "
                  "one per run (it is fixed at MPI_Init); the run stops if Open MPI does not take it");
}

}  // namespace hetprobe::cli
