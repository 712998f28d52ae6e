// Pieces the subcommands share: their common options, and which launched process speaks.
#include <cstdlib>

#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/core/sizes.hpp"
#include "probes/device/device.hpp"

namespace hetprobe::cli {

bool first_launched_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(var)) return std::string(v) == "0";
  return true;
}

void add_bind_option(CLI::App* command, BindPolicy& bind) {
  add_parsed_option(command, "--bind", bind, parse_bind,
                    "Bind each rank's CPUs and memory: near-gpu (the NUMA node(s) nearest its GPU), far-gpu (the "
                    "others: the cost of the wrong socket), none, or a cpu list like 0-7,16; read back into the "
                    "results header [default: near-gpu]")
      ->type_name("POLICY");
}

void add_device_option(CLI::App* command, std::string& device) {
  std::string names;
  for (const char* b : kBackendNames) names += std::string(", ") + b;
  command->add_option("--device", device, "Backend: auto (a GPU if there is one, else host)" + names)
      ->capture_default_str();
}

void add_gpu_option(CLI::App* command, std::optional<int>& gpu) {
  command
      ->add_option("--gpu", gpu,
                   "Device ordinal within the backend (default: the rank's node-local index, round robin over the "
                   "node's devices)")
      ->check(integer_in(0, kMaxDeviceOrdinal));
}

void add_out_option(CLI::App* command, std::string& out, const std::string& help) {
  command->add_option("--out", out, help);
}

void add_clock_option(CLI::App* command, ClockChoice& clock) {
  add_enum_option(command, "--clock", clock, kClockChoiceNames,
                  "Host clock for timing: auto (the TSC where it is invariant, else steady), tsc or steady");
}

void add_quiet_flag(CLI::App* command, bool& quiet) {
  command->add_flag("--quiet", quiet, "No progress lines on stderr");
}

void add_reps_option(CLI::App* command, int& reps, const std::string& help) {
  add_count_option(command, "--reps", reps, help);
}

void add_warmup_option(CLI::App* command, int& warmup, const std::string& help) {
  add_count_option(command, "--warmup", warmup, help, 0);
}

void add_timeout_option(CLI::App* command, double& timeout_s) {
  command
      ->add_option("--timeout", timeout_s,
                   "Seconds any wait (host or device) may take before the run stops "
                   "with an error")
      ->check(seconds_up_to_a_day())
      ->capture_default_str();
}

void add_size_option(CLI::App* command, std::string& size, const std::string& help) {
  command->add_option("--size", size, help)->capture_default_str();
}

std::uint64_t size_option_bytes(const std::string& size) {
  const std::uint64_t bytes = parse_option("--size", size, [](const std::string& t) { return parse_size(t); });
  check_memory_available(bytes, "--size " + size);
  return bytes;
}

void add_seed_option(CLI::App* command, std::optional<std::string>& seed) {
  add_seed_option(command, seed,
                  "Seed of the rounds' orders, a whole number (recorded in the header: give it again to replay "
                  "the same orders) [default: drawn at random]");
}

void add_seed_option(CLI::App* command, std::optional<std::string>& seed, const std::string& help) {
  command->add_option("--seed", seed, help);
}

}  // namespace hetprobe::cli
