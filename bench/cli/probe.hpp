// A probe is one object, as a test case is in nvbandwidth: what it is, its
// options, and the parts of a run that the session frame (probe_session.hpp)
// calls in order; ten virtual methods, the optional parts behind hooks(). A
// probe's subcommand file defines one, and probe_table.cpp lists it once with
// its record functions; the CLI, `show`, the progress labels and the Python
// module's in-process probes all read that table.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/cli/session_options.hpp"
#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"
#include "bench/core/table.hpp"
#include "probes/device/device.hpp"
#include "probes/device/host_clock.hpp"
#include "topology/topology.hpp"

namespace hetprobe::cli {

// What a probe is and how its ranks work: fixed for the probe, not its options.
struct ProbeTraits {
  // The subcommand's help line.
  std::string description;
  // Each rank measures its own device (notify, clock, bandwidth): one rank
  // after another, rank 0 first, with a barrier between turns, so devices do
  // not disturb each other; --concurrent measures on every rank at once. The
  // header says which (ranks_in_turn), and every record when its rank began
  // measuring and when it was finished.
  bool ranks_take_turns = false;
  // Records carry the rank that measured them; off where rank 0 makes every record.
  bool rank_field = true;
};

// What a run will take and make, from the settled config (after check and
// share; after resume on --resume).
struct RunPlan {
  // Records rank 0 will write, for the header's planned_records and the
  // progress lines' ETA; 0: unknown.
  std::size_t expected_records = 0;
  // Progress items in all, where they are not the records (a resumed run
  // counts the items already done); 0: expected_records.
  std::size_t progress_total = 0;
  // Bytes of host memory this rank will allocate: the ranks of a node
  // together must fit what is available. What they are for, in the message
  // when they do not fit ("": the frame's wording).
  std::uint64_t host_bytes = 0;
  std::string memory_what{};
};

// The parts of a run that only some probes have (interference today); the
// frame does without them where a probe has none (Probe::hooks() null).
class RunHooks {
 public:
  virtual ~RunHooks() = default;
  // Takes what the probe holds for the run once the node's memory is checked
  // (after binding: pages land on the bound NUMA node); returns the pinned
  // buffer the header's placement describes, or null. release() gives it back
  // (loads stopped) before MPI ends the run, normally or at an error.
  virtual const PinnedBuffer* allocate(Device&, const Topology&, const MpiContext&) { return nullptr; }
  virtual void release() {}
  // --resume: a probe that can continue a killed run. Rank 0 reads what every
  // rank must know of the records already in the file (text, broadcast);
  // every rank takes it and returns how many items are already done.
  virtual bool resumable() const { return false; }
  virtual std::string read_done(const ResultsFile&, const Device&) { return ""; }
  virtual std::size_t take_done(const std::string&) { return 0; }
  // A live table. Rank 0, once the header is written: what the probe says
  // before it measures (false: the frame's device line); then each record as
  // it is written; at the end, what it prints of every rank's records
  // (false: the frame prints the probe's report as a text table).
  virtual bool begin(const Json&, const std::filesystem::path&, std::size_t) { return false; }
  virtual void on_record(const Json&) {}
  virtual bool print(const Json&, const std::vector<Json>&) { return false; }
};

// A probe's object for one run: its options and the parts of a run that the
// session frame (probe_session.hpp) calls in order. What it makes of records
// (its tables, its progress labels, its pooling) does not depend on the
// options: those are functions in its table line (probe_table.hpp).
class Probe {
 public:
  virtual ~Probe() = default;

  virtual ProbeTraits traits() const = 0;
  // Its own options on its subcommand, and the shared ones it offers
  // (add_session_options and the others in session_options.hpp). Called once,
  // before parsing.
  virtual void add_options(CLI::App& command) = 0;
  // Where add_options parsed the shared options into.
  virtual const SessionOptions& session() const = 0;

  // --- A run, in the order the frame calls it ---
  // The config from the parsed options; throws a usage Error on bad input.
  // Every rank; --check-options stops after it.
  virtual void configure() = 0;
  // Checks the config against the opened device and the ranks, completing it
  // where it depends on them; throws a usage Error. Every rank, and local:
  // no collective here, for a rank that throws leaves the others waiting
  // inside it (the frame agrees on every rank's outcome after it).
  virtual void check(const Device&, const MpiContext&) {}
  // What the ranks settle together once every rank's check passed (a seed
  // drawn by rank 0). Collective: every rank.
  virtual void share(const MpiContext&) {}
  // The config as the header records it (after check).
  virtual Json config_json() const = 0;
  virtual RunPlan plan(const MpiContext&, const Topology&) const = 0;
  // Measures; every record goes to `sink` (rank 0 writes its own at once).
  // Collective probes (halo, interference) use `mpi`; the others measure
  // their own device.
  virtual void measure(Device&, const HostClock&, const MpiContext& mpi, const RecordSink& sink) = 0;
  // Its optional parts, or null: none.
  virtual RunHooks* hooks() { return nullptr; }
};

// A probe whose config is built from its parsed options: the options (with
// the shared ones in a `session` member), add_probe_options(CLI::App*,
// Options*) and build_config(Options) beside them (found by argument-dependent
// lookup) and Config::to_json(). Gives the parts every probe had written
// alike, --concurrent where the ranks take turns among them; a probe adds its
// own checks of the options after the build (configured) and what its
// header's config holds beyond Config::to_json() (add_to_config_json).
template <class Options, class Config>
class ConfiguredProbe : public Probe {
 public:
  void add_options(CLI::App& command) final {
    add_probe_options(&command, &options_);
    if (traits().ranks_take_turns) add_concurrent_flag(&command, options_.session);
  }
  const SessionOptions& session() const final { return options_.session; }
  void configure() final {
    config_ = build_config(options_);
    configured();
  }
  Json config_json() const final {
    Json j = config_.to_json();
    add_to_config_json(j);
    return j;
  }

 protected:
  virtual void configured() {}
  virtual void add_to_config_json(Json&) const {}
  Options options_;
  Config config_;
};

}  // namespace hetprobe::cli
