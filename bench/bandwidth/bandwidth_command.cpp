// `hetprobe bandwidth`: options -> config, run on every rank through the
// common session frame (bandwidth.hpp measures).
#include <algorithm>
#include <memory>

#include "base/errors.hpp"
#include "bench/bandwidth/bandwidth.hpp"
#include "bench/bandwidth/bandwidth_table.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/cli/probe.hpp"
#include "bench/core/results_report.hpp"
#include "bench/core/table.hpp"
#include "bench/load/load_options.hpp"

namespace hetprobe::cli {

namespace {

// The subcommand's help line.
constexpr const char* kDescription =
    "How fast the device moves pinned host memory: a plain pass of each kind (write kernel, read kernel, one "
    "async copy each way) against the paper's persistent writer and the interference loads at full rate "
    "(each rank its own device)";

// A sample of a persistent writer or load: long enough for any rate, short
// enough that --reps of them stay within a run.
constexpr double kMaxSampleSeconds = 60;

struct Options {
  SessionOptions session;
  std::string size = "256MiB";
  int reps = 5;
  double duration_s = 0.2;
  double timeout_s = 30;
  std::string load = "all";
};

// Every input checked before anything is opened or written.
BandwidthConfig build_config(const Options& o) {
  BandwidthConfig c;
  c.bytes = size_option_bytes(o.size);
  c.loads = parse_option("--load", o.load, parse_load_kinds);
  std::erase(c.loads, LoadKind::none);
  c.reps = o.reps;  // range-checked by the parser, as --duration and --timeout are
  c.duration_s = o.duration_s;
  c.timeout_s = o.timeout_s;
  return c;
}

void add_probe_options(CLI::App* c, Options* o) {
  add_size_option(c, o->size, "Bytes of the pinned buffer");
  add_reps_option(c, o->reps, "Samples of each");
  c->add_option("--duration", o->duration_s, "Seconds each persistent writer or load sample runs")
      ->check(number_in(0, kMaxSampleSeconds, true, " s"))
      ->capture_default_str();
  c->add_option("--load", o->load,
                "Load kinds to measure at full rate: all, or a list of write, read, poll, "
                "copy-d2h, copy-h2d")
      ->capture_default_str();
  add_timeout_option(c, o->timeout_s);
  add_session_options(c, o->session, "bandwidth");
}

class BandwidthProbe final : public ConfiguredProbe<Options, BandwidthConfig> {
 public:
  ProbeTraits traits() const override { return {kDescription, /*ranks_take_turns=*/true}; }

  RunPlan plan(const MpiContext&, const Topology&) const override {
    return {.expected_records = config_.records(), .host_bytes = config_.bytes};
  }
  void measure(Device& d, const HostClock&, const MpiContext&, const RecordSink& sink) override {
    run_bandwidth(config_, d, sink);
  }
};

}  // namespace

std::unique_ptr<Probe> make_bandwidth_probe() { return std::make_unique<BandwidthProbe>(); }

}  // namespace hetprobe::cli
