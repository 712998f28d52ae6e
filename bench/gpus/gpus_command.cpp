// `hetprobe gpus`: options -> config, the rounds on every rank (gpus.hpp
// measures, node_verdict.hpp judges).
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/errors.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/cli/probe.hpp"
#include "bench/core/mpi_context.hpp"
#include "bench/core/rounds.hpp"
#include "bench/gpus/gpu_rounds.hpp"
#include "bench/gpus/gpus.hpp"
#include "bench/gpus/gpus_table.hpp"
#include "bench/gpus/node_verdict.hpp"

namespace hetprobe::cli {

namespace {

// The subcommand's help line.
constexpr const char* kDescription =
    "Every GPU of the node, one rank each, in rounds that visit them in a shuffled order: the flag round "
    "trip, launch + device synchronise and the plain passes' GB/s, each visit in a pinned buffer and flags "
    "of its own; then the node verdict of the rounds (a GPU worse than the others beyond --tolerance)";

struct Options {
  SessionOptions session;
  std::string size = "64MiB";
  std::optional<std::string> seed;  // not given: drawn by rank 0 and shared ("" is refused)
  std::string phase = "measure";
  std::string tolerance = "10%";
  bool share_devices = false;
  GpusConfig numbers;
};

GpusConfig build_config(const Options& o) {
  GpusConfig c = o.numbers;  // counts range-checked by the parser
  c.bytes = size_option_bytes(o.size);
  if (o.seed) c.seed = parse_seed(*o.seed);
  c.phase = parse_option("--phase", o.phase, [](const std::string& t) { return kGpusPhaseNames.parse(t); });
  c.tolerance = parse_tolerance(o.tolerance);
  return c;
}

void add_probe_options(CLI::App* c, Options* o) {
  c->add_option("--rounds", o->numbers.rounds, "Visits of every GPU, each round in a shuffled order")
      ->check(integer_in(1, 10000))
      ->capture_default_str();
  add_size_option(c, o->size, "Bytes of each visit's pinned buffer for the plain passes");
  add_reps_option(c, o->numbers.reps, "Timed passes of each kind per visit (their median)");
  add_count_option(c, "--exchanges", o->numbers.exchanges, "Flag round trips per visit (their median)");
  add_count_option(c, "--launch-samples", o->numbers.launch_samples,
                   "Kernel launches + device synchronise per visit (their median)");
  add_warmup_option(c, o->numbers.warmup, "Untimed round trips and launches before each visit's timed ones");
  add_seed_option(c, o->seed, "Seed of the rounds' orders (default: drawn, and recorded)");
  c->add_option("--phase", o->phase,
                "measure, or remeasure: a later launch that confirms a GPU the node verdict flagged")
      ->capture_default_str();
  c->add_option("--tolerance", o->tolerance,
                "How much worse than the node's other GPUs a GPU may be before it is flagged: a percent (10%) "
                "or a fraction (0.1)")
      ->capture_default_str();
  c->add_flag("--share-devices", o->share_devices,
              "Let ranks measure one device (a check on a machine of fewer GPUs than ranks); the verdict then "
              "judges no ratio, for a GPU is never compared with itself");
  add_timeout_option(c, o->numbers.timeout_s);
  add_session_options(c, o->session, "gpus");
}

class GpusProbe final : public ConfiguredProbe<Options, GpusConfig> {
 public:
  ProbeTraits traits() const override {
    return {kDescription, /*ranks_take_turns=*/false, /*rank_field=*/false};  // each visit names its GPU
  }

  void check(const Device& d, const MpiContext& mpi) override {
    ranks_ = mpi.size;
    device_ = device_key(mpi.host, d.info().pci_bus_id, d.info().ordinal);
  }
  void share(const MpiContext& mpi) override {
    // Ranks that share a device would be judged against themselves: refused on every rank, unless asked for.
    std::string shared;
    const std::vector<std::string> devices = gather_strings(mpi, device_);  // on rank 0; empty elsewhere
    std::map<int, std::string> device_of;
    for (std::size_t rank = 0; rank < devices.size(); ++rank) device_of[static_cast<int>(rank)] = devices[rank];
    if (const auto pair = ranks_sharing_a_device(device_of))
      shared = "ranks " + std::to_string(pair->first) + " and " + std::to_string(pair->second) +
               " would measure one device (" + devices[pair->first] + ")";
    shared = broadcast_string(mpi, shared);
    if (!shared.empty() && !options_.share_devices)
      throw usage_error(shared +
                        ": the verdict would compare a GPU with itself; give each rank its own GPU (as "
                        "many ranks as GPUs, or --gpu), or pass --share-devices to measure anyway");
    if (!options_.seed) config_.seed = shared_random_seed(mpi);
  }
  RunPlan plan(const MpiContext&, const Topology&) const override {
    return {.expected_records = static_cast<std::size_t>(config_.rounds) * static_cast<std::size_t>(ranks_) + 1,
            .host_bytes = config_.bytes};
  }
  void measure(Device& d, const HostClock& clock, const MpiContext& mpi, const RecordSink& sink) override {
    run_gpus(config_, d, clock, mpi, sink);
  }

 private:
  int ranks_ = 1;
  std::string device_;  // host and device of this rank, as check() found them
};

}  // namespace

std::unique_ptr<Probe> make_gpus_probe() { return std::make_unique<GpusProbe>(); }

}  // namespace hetprobe::cli
