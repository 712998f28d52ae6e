// `hetprobe clock`: the device timer against the host clock by ping-pong
// (thesis 003 Sec. 4.3.2): offset, drift, precision, residuals, and a check
// that the fit predicts an independent later sync.
#include <memory>

#include "command.hpp"
#include "hetprobe/clock_sync.hpp"
#include "hetprobe/errors.hpp"
#include "hetprobe/notify_table.hpp"
#include "probe_session.hpp"

namespace hetprobe::cli {

namespace {

struct Options {
  SessionOptions session;
  ClockSyncConfig config;
  std::string order = "fence";
};

ClockSyncConfig build_config(const Options& o) {
  ClockSyncConfig c = o.config;
  c.order = parse_memory_order(o.order);
  if (c.samples_per_batch < 2) throw usage_error("--samples must be at least 2");
  if (c.batches < 2) throw usage_error("--batches must be at least 2 (a line needs two ends)");
  if (!(c.span_s > 0)) throw usage_error("--span must be positive (seconds)");
  if (!(c.check_after_s >= 0)) throw usage_error("--check-after must not be negative (seconds)");
  if (!(c.keep_fraction > 0 && c.keep_fraction <= 1)) throw usage_error("--keep must be in (0, 1]");
  if (!(c.timeout_s > 0)) throw usage_error("--timeout must be positive (seconds)");
  return c;
}

}  // namespace

CommandFn add_clock_command(CLI::App& app, const CommandEnv& env) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("clock",
      "Relate the device timer to the host clock by ping-pong: offset, drift (ppm), precision and residuals of a "
      "linear fit over a span, checked against a later independent sync (single process; one device per MPI rank)");
  c->add_option("--samples", o->config.samples_per_batch, "Ping-pong samples per batch")->capture_default_str();
  c->add_option("--batches", o->config.batches, "Batches fitted, spread evenly over --span")->capture_default_str();
  c->add_option("--span", o->config.span_s, "Seconds from the first fitted batch to the last")->capture_default_str();
  c->add_option("--check-after", o->config.check_after_s, "Seconds after the last fitted batch to take the check batch")
      ->capture_default_str();
  c->add_option("--keep", o->config.keep_fraction, "Fraction of samples fitted: those with the shortest round trips")
      ->capture_default_str();
  c->add_option("--order", o->order, "Flag accesses on both sides: volatile, relaxed, acqrel, fence")
      ->capture_default_str();
  c->add_option("--timeout", o->config.timeout_s, "Seconds any wait may take before the run stops with an error")
      ->capture_default_str();
  add_session_options(c, o->session, "clock");
  return [o, env](const std::vector<std::string>& argv) {
    auto config = std::make_shared<ClockSyncConfig>();
    return run_session({"clock",
                        [o, config] {
                          *config = build_config(*o);
                          return config->to_json();
                        },
                        nullptr,
                        [config](Device& d, const HostClock& clock, const MpiContext&, const RecordSink& sink) {
                          run_clock(*config, d, clock, sink);
                        },
                        [](const Json& header, const std::vector<Json>& records) {
                          print_clock_table(stdout, header, records);
                        }},
                       o->session, argv, env);
  };
}

}  // namespace hetprobe::cli
