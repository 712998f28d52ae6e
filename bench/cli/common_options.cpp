// Pieces the subcommands share: --bind, and which launched process speaks.
#include <cstdlib>

#include "bench/cli/command.hpp"

namespace hetprobe::cli {

bool first_launched_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(var)) return std::string(v) == "0";
  return true;
}

void add_bind_option(CLI::App* command, std::string& bind) {
  command->add_option("--bind", bind,
                      "Bind each rank's CPUs and memory: near-gpu (the NUMA node(s) nearest its GPU), far-gpu (the "
                      "others: the cost of the wrong socket), none, or a cpu list like 0-7,16; read back into the "
                      "results header")
      ->capture_default_str();
}

}  // namespace hetprobe::cli
