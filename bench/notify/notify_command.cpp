// `hetprobe notify`: the cost of one CPU<->GPU notification through a flag
// (paper 002 Table 1: the handover part; the overhead part is a loop on a
// line the side owns), the round trip both ways, and every mechanism side by
// side. Single process; under mpirun each rank measures its own device.
#include <algorithm>
#include <memory>

#include "base/errors.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/cli/probe.hpp"
#include "bench/notify/notify.hpp"
#include "bench/notify/notify_table.hpp"

namespace hetprobe::cli {

namespace {

// The subcommand's help line.
constexpr const char* kDescription =
    "CPU<->GPU notification costs: one flag read+write on each side of a flag the other side wrote last "
    "(Elis et al. 2024, Table 1), the same in a loop on an owned line, the flag round trip both ways, and every "
    "signalling mechanism side by side (single process; one device per MPI rank)";

struct Options {
  SessionOptions session;
  std::string parts = "all";
  std::string orders = "volatile:relaxed,volatile,relaxed,acqrel,fence,volatile:fence";
  std::string placements = "pinned";
  std::string spacings = "line";
  std::string host_memory = "default";
  NotifyConfig numbers;  // the integer options, parsed straight in
};

// The numbers are range-checked by the parser (option_checks.hpp); the lists here.
NotifyConfig build_config(const Options& o) {
  NotifyConfig c = o.numbers;
  c.parts = parse_enum_list("--parts", o.parts, kNotifyPartNames);
  c.orders = parse_option("--orders", o.orders, parse_order_pairs);
  c.placements = parse_enum_list("--placement", o.placements, kFlagPlacementNames);
  c.spacings = parse_enum_list("--spacing", o.spacings, kFlagSpacingNames);
  c.host_memory = parse_enum("--host-memory", o.host_memory, kHostCoherenceNames);
  return c;
}

// Records run_notify writes: per placement, spacing and order 2 handovers
// (one per side), 4 overhead records (cpu and gpu side, alone and contended)
// and 2 round trips (one each way); then the mechanisms.
std::size_t planned_records(const NotifyConfig& c) {
  const auto has = [&](NotifyPart p) { return std::find(c.parts.begin(), c.parts.end(), p) != c.parts.end(); };
  const std::size_t per_setup = (has(NotifyPart::overhead) ? 4 : 0) + (has(NotifyPart::handover) ? 2 : 0) +
                                (has(NotifyPart::roundtrip) ? 2 : 0);
  return c.placements.size() * c.spacings.size() * c.orders.size() * per_setup +
         (has(NotifyPart::mechanisms) ? notify_mechanism_count() : 0);
}

void add_probe_options(CLI::App* c, Options* o) {
  c->add_option("--parts", o->parts,
                "What to measure: all, or a list of handover (one read+write of a flag the other side wrote last: "
                "Table 1), overhead (read+write pairs in a loop on an owned line), roundtrip, mechanisms")
      ->capture_default_str();
  c->add_option("--orders", o->orders,
                "Memory-ordering primitives, a list of ORDER (both sides) or CPU_ORDER:GPU_ORDER; ORDER is volatile, "
                "relaxed (atomic), acqrel (acquire loads, release stores; system scope on the GPU) or fence (volatile "
                "+ system fence). volatile:relaxed is the paper's Table 1 (CPU plain, GPU atomics)")
      ->capture_default_str();
  c->add_option("--placement", o->placements,
                "Flag memory for handover, overhead and round trip: pinned, managed (a list), or all")
      ->capture_default_str();
  c->add_option("--spacing", o->spacings,
                "Distance between the two flags: same-line (8 B), line (128 B), page "
                "(4096 B) (a list), or all")
      ->capture_default_str();
  c->add_option("--host-memory", o->host_memory, "Pinned host memory kind (HIP only): default, coherent, noncoherent")
      ->capture_default_str();
  add_count_option(c, "--handover-samples", o->numbers.handover_samples,
                   "Handover pairs per configuration and side, each timed alone");
  add_count_option(c, "--overhead-ops", o->numbers.overhead_ops, "Read+write pairs per overhead sample");
  add_count_option(c, "--overhead-samples", o->numbers.overhead_samples, "Overhead samples per configuration");
  add_count_option(c, "--exchanges", o->numbers.exchanges, "Round trips per configuration and direction");
  add_count_option(c, "--mechanism-samples", o->numbers.mechanism_samples, "Round trips per mechanism");
  add_warmup_option(c, o->numbers.warmup, "Untimed exchanges before each timed set");
  add_timeout_option(c, o->numbers.timeout_s);
  add_session_options(c, o->session, "notify");
}

class NotifyProbe final : public ConfiguredProbe<Options, NotifyConfig> {
 public:
  ProbeTraits traits() const override { return {kDescription, /*ranks_take_turns=*/true}; }

  void check(const Device& d, const MpiContext&) override { check_notify_config(config_, d.info()); }
  RunPlan plan(const MpiContext&, const Topology&) const override {
    return {.expected_records = planned_records(config_)};
  }
  void measure(Device& d, const HostClock& clock, const MpiContext&, const RecordSink& sink) override {
    run_notify(config_, d, clock, sink);
  }
};

}  // namespace

std::unique_ptr<Probe> make_notify_probe() { return std::make_unique<NotifyProbe>(); }

}  // namespace hetprobe::cli
