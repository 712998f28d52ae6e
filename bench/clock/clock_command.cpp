// `hetprobe clock`: the device timer against the host clock by ping-pong
// (thesis 003 Sec. 4.3.2): offset, drift, precision, residuals, and a check
// that the fit predicts an independent later sync.
#include <memory>

#include "base/errors.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/cli/probe.hpp"
#include "bench/clock/clock_table.hpp"
#include "bench/protocols/clock_sync.hpp"
#include "probes/device/device_names.hpp"

namespace hetprobe::cli {

namespace {

// The subcommand's help line.
constexpr const char* kDescription =
    "Relate the device timer to the host clock by ping-pong: offset, drift (ppm), precision and residuals of "
    "a linear fit over a span, checked against a later independent sync (single process; one device per MPI "
    "rank)";

// Batches are ping-pong bursts spread over the span: more than this is a
// typing mistake, and each one is a record.
constexpr int kMaxBatches = 10'000;
// Every sample is kept in memory for the fit (24 bytes each).
constexpr long long kMaxSamples = 10'000'000;

struct Options {
  SessionOptions session;
  ClockSyncConfig config;
  std::string order = "fence";
};

// The numbers are range-checked by the parser (option_checks.hpp).
ClockSyncConfig build_config(const Options& o) {
  ClockSyncConfig c = o.config;
  c.order = parse_enum("--order", o.order, kMemoryOrderNames);
  const long long samples = static_cast<long long>(c.samples_per_batch) * (c.batches + 1);
  if (samples > kMaxSamples)
    throw usage_error("--samples " + std::to_string(c.samples_per_batch) + " x (--batches " +
                      std::to_string(c.batches) + " + the check batch) is " + std::to_string(samples) +
                      " samples; at most " + std::to_string(kMaxSamples) + " in all");
  return c;
}

void add_probe_options(CLI::App* c, Options* o) {
  add_count_option(c, "--samples", o->config.samples_per_batch, "Ping-pong samples per batch", 2);
  c->add_option("--batches", o->config.batches, "Batches fitted, spread evenly over --span (a line needs two ends)")
      ->check(integer_in(2, kMaxBatches))
      ->capture_default_str();
  c->add_option("--span", o->config.span_s, "Seconds from the first fitted batch to the last")
      ->check(seconds_up_to_a_day())
      ->capture_default_str();
  c->add_option("--check-after", o->config.check_after_s, "Seconds after the last fitted batch to take the check batch")
      ->check(number_in(0, kMaxSeconds, false, " s"))
      ->capture_default_str();
  c->add_option(
       "--keep", o->config.keep_fraction,
       "Most of each batch fitted: the fit keeps a batch's round trips within 5% of its shortest (at least 4), "
       "up to this fraction")
      ->check(number_in(0, 1, true))
      ->capture_default_str();
  c->add_option("--flag-pages", o->config.flag_pages,
                "Pinned allocations tried for the sync's flags; the one with the shortest round trips is kept "
                "(where the flags lie moves the precision's bound)")
      ->check(integer_in(1, 64))
      ->capture_default_str();
  c->add_option("--order", o->order, "Flag accesses on both sides: volatile, relaxed, acqrel, fence")
      ->capture_default_str();
  add_timeout_option(c, o->config.timeout_s);
  add_session_options(c, o->session, "clock");
}

class ClockProbe final : public ConfiguredProbe<Options, ClockSyncConfig> {
 public:
  ProbeTraits traits() const override { return {kDescription, /*ranks_take_turns=*/true}; }

  // A record per fitted batch, the check batch's, the fit's.
  RunPlan plan(const MpiContext&, const Topology&) const override {
    return {.expected_records = static_cast<std::size_t>(config_.batches) + 2};
  }
  void measure(Device& d, const HostClock& clock, const MpiContext&, const RecordSink& sink) override {
    run_clock(config_, d, clock, sink);
  }
};

}  // namespace

std::unique_ptr<Probe> make_clock_probe() { return std::make_unique<ClockProbe>(); }

}  // namespace hetprobe::cli
