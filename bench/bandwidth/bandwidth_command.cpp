// `hetprobe bandwidth`: options -> config, run on every rank through the
// common session frame (bandwidth.hpp measures).
#include <algorithm>
#include <memory>

#include "base/errors.hpp"
#include "bench/bandwidth/bandwidth.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/cli/probe_session.hpp"
#include "bench/core/results_report.hpp"
#include "bench/core/sizes.hpp"
#include "bench/core/table.hpp"
#include "bench/load/load_options.hpp"

namespace hetprobe::cli {

namespace {

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
  c.bytes = parse_option("--size", o.size, [](const std::string& t) { return parse_size(t); });
  c.loads = parse_option("--load", o.load, parse_load_kinds);
  std::erase(c.loads, LoadKind::none);
  check_memory_available(c.bytes, "--size " + o.size);
  c.reps = o.reps;  // range-checked by the parser, as --duration and --timeout are
  c.duration_s = o.duration_s;
  c.timeout_s = o.timeout_s;
  return c;
}

}  // namespace

CommandFn add_bandwidth_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand(
      "bandwidth",
      "How fast the device moves pinned host memory: a plain pass of each kind (write kernel, read kernel, one "
      "async copy each way) against the paper's persistent writer and the interference loads at full rate "
      "(each rank its own device)");
  c->add_option("--size", o->size, "Bytes of the pinned buffer")->capture_default_str();
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
  add_concurrent_flag(c, o->session);
  return [o](const std::vector<std::string>& argv) {
    auto config = std::make_shared<BandwidthConfig>();
    ProbeSession session{"bandwidth",
                         [o, config] {
                           *config = build_config(*o);
                           return config->to_json();
                         },
                         nullptr,
                         [config](Device& d, const HostClock&, const MpiContext&, const RecordSink& sink) {
                           run_bandwidth(*config, d, sink);
                         },
                         [](const Json& header, const std::vector<Json>& records) {
                           print_report(stdout, TableFormat::table,
                                        bandwidth_report(records_of_this_run(header, records)));
                         }};
    session.expected_records = [config] { return config->records(); };
    session.host_bytes = [config](const MpiContext&, const Topology&) { return config->bytes; };
    session.ranks_take_turns = true;
    return run_session(session, o->session, argv, {});
  };
}

}  // namespace hetprobe::cli
