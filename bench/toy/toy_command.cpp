// `hetprobe toy`: the smallest probe, the worked example of
// docs/architecture.md ("Adding a probe"). It times reads of the host clock
// that every host timing of hetprobe takes (the floor under them), and is its
// folder: this file, its table, its records' declaration (records.schema.json)
// and its test; one line in bench/cli/probe_table.cpp lists it.
#include <memory>
#include <vector>

#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/cli/probe.hpp"
#include "bench/core/results.hpp"

namespace hetprobe::cli {

namespace {

constexpr const char* kDescription =
    "The example probe (docs/architecture.md, Adding a probe): what one read of the host clock costs, in ns "
    "(each rank on its own)";

struct ToyConfig {
  int samples = 1000;
  int reads_per_sample = 100;
  Json to_json() const { return {{"samples", samples}, {"reads_per_sample", reads_per_sample}}; }
};

struct Options {
  SessionOptions session;
  ToyConfig config;
};

ToyConfig build_config(const Options& o) { return o.config; }  // the parser checks the ranges

void add_probe_options(CLI::App* c, Options* o) {
  add_count_option(c, "--samples", o->config.samples, "Samples, each timing --reads reads of the clock", 2);
  c->add_option("--reads", o->config.reads_per_sample, "Clock reads per sample")
      ->check(integer_in(1, 1'000'000))
      ->capture_default_str();
  add_session_options(c, o->session, "toy");
}

class ToyProbe final : public ConfiguredProbe<Options, ToyConfig> {
 public:
  ProbeTraits traits() const override { return {kDescription, /*ranks_take_turns=*/true}; }
  RunPlan plan(const MpiContext&, const Topology&) const override { return {.expected_records = 1}; }

  void measure(Device&, const HostClock& clock, const MpiContext&, const RecordSink& sink) override {
    std::vector<double> ns_per_read;
    ns_per_read.reserve(static_cast<std::size_t>(config_.samples));
    for (int s = 0; s < config_.samples; ++s) {
      const std::uint64_t start = clock.now();
      std::uint64_t last = start;
      for (int i = 0; i < config_.reads_per_sample; ++i) last = clock.now();
      ns_per_read.push_back(clock.to_ns(last - start) / config_.reads_per_sample);
    }
    Json summary = summary_json(ns_per_read);
    summary["samples"] = ns_per_read;
    sink({{"record", "timer_read"},
          {"probe", "toy"},
          {"clock", clock.source()},
          {"reads_per_sample", config_.reads_per_sample},
          {"ns_per_read", std::move(summary)}});
  }
};

}  // namespace

std::unique_ptr<Probe> make_toy_probe() { return std::make_unique<ToyProbe>(); }

}  // namespace hetprobe::cli
