// `hetprobe notify`: the cost of one CPU<->GPU notification through a flag
// (paper 002 Table 1), the round trip both ways, and every mechanism side by
// side. Single process; under mpirun each rank measures its own device.
#include <memory>

#include "command.hpp"
#include "hetprobe/errors.hpp"
#include "hetprobe/notify.hpp"
#include "hetprobe/notify_table.hpp"
#include "probe_session.hpp"

namespace hetprobe::cli {

namespace {

struct Options {
  SessionOptions session;
  std::string parts = "all";
  std::string orders = "volatile:relaxed,volatile,relaxed,acqrel,fence,volatile:fence";
  std::string placements = "pinned";
  std::string spacings = "line";
  std::string host_memory = "default";
  NotifyConfig numbers;  // the integer options, parsed straight in
};

NotifyConfig build_config(const Options& o) {
  NotifyConfig c = o.numbers;
  c.parts = parse_notify_parts(o.parts);
  c.orders = parse_order_pairs(o.orders);
  c.placements = parse_flag_placements(o.placements);
  c.spacings = parse_flag_spacings(o.spacings);
  c.host_memory = parse_host_coherence(o.host_memory);
  for (auto [value, name] : {std::pair{c.overhead_ops, "--overhead-ops"}, {c.overhead_samples, "--overhead-samples"},
                             {c.exchanges, "--exchanges"}, {c.mechanism_samples, "--mechanism-samples"}})
    if (value < 1) throw usage_error(std::string(name) + " must be at least 1");
  if (c.warmup < 0) throw usage_error("--warmup must not be negative");
  if (!(c.timeout_s > 0)) throw usage_error("--timeout must be positive (seconds)");
  return c;
}

}  // namespace

CommandFn add_notify_command(CLI::App& app, const CommandEnv& env) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("notify",
      "CPU<->GPU notification costs: one flag read+write on each side (paper Table 1), the flag round trip both "
      "ways, and every signalling mechanism side by side (single process; one device per MPI rank)");
  c->add_option("--parts", o->parts, "What to measure: all, or a list of overhead, roundtrip, mechanisms")
      ->capture_default_str();
  c->add_option("--orders", o->orders,
                "Memory-ordering primitives, a list of ORDER (both sides) or CPU_ORDER:GPU_ORDER; ORDER is volatile, "
                "relaxed (atomic), acqrel (acquire loads, release stores; system scope on the GPU) or fence (volatile "
                "+ system fence). volatile:relaxed is the paper's Table 1 (CPU plain, GPU atomics)")
      ->capture_default_str();
  c->add_option("--placement", o->placements, "Flag memory for overhead and round trip: pinned, managed (a list)")
      ->capture_default_str();
  c->add_option("--spacing", o->spacings, "Distance between the two flags: same-line (8 B), line (128 B), page "
                "(4096 B) (a list)")->capture_default_str();
  c->add_option("--host-memory", o->host_memory, "Pinned host memory kind (HIP only): default, coherent, noncoherent")
      ->capture_default_str();
  c->add_option("--overhead-ops", o->numbers.overhead_ops, "Read+write pairs per overhead sample")->capture_default_str();
  c->add_option("--overhead-samples", o->numbers.overhead_samples, "Overhead samples per configuration")
      ->capture_default_str();
  c->add_option("--exchanges", o->numbers.exchanges, "Round trips per configuration and direction")
      ->capture_default_str();
  c->add_option("--mechanism-samples", o->numbers.mechanism_samples, "Round trips per mechanism")->capture_default_str();
  c->add_option("--warmup", o->numbers.warmup, "Untimed exchanges before each timed set")->capture_default_str();
  c->add_option("--timeout", o->numbers.timeout_s, "Seconds any wait (host or device) may take before the run stops "
                "with an error")->capture_default_str();
  add_session_options(c, o->session, "notify");
  return [o, env](const std::vector<std::string>& argv) {
    auto config = std::make_shared<NotifyConfig>();
    return run_session({"notify",
                        [o, config] {
                          *config = build_config(*o);
                          return config->to_json();
                        },
                        [config](const Device& d) { check_notify_config(*config, d.info()); },
                        [config](Device& d, const HostClock& clock, const MpiContext&, const RecordSink& sink) {
                          run_notify(*config, d, clock, sink);
                        },
                        [](const Json& header, const std::vector<Json>& records) {
                          print_notify_tables(stdout, header, records);
                        }},
                       o->session, argv, env);
  };
}

}  // namespace hetprobe::cli
