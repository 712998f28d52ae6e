#include "bench/cli/probe_session.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "bench/cli/error_record.hpp"
#include "bench/cli/probe_table.hpp"
#include "bench/core/mpi_transport.hpp"
#include "bench/core/placement.hpp"
#include "bench/core/progress.hpp"
#include "bench/core/results_report.hpp"
#include "bench/core/run_header.hpp"

namespace hetprobe::cli {

namespace {

// What a session needs before it measures: checked config, clock, topology,
// the rank placed (device opened, process bound). Throws usage Errors.
struct Prepared {
  std::optional<HostClock> clock;
  std::optional<Topology> topo;
  RankPlacement placement;
  Json mpi_transport;
};

void prepare(Prepared& p, Probe& probe, const MpiContext& mpi) {
  const SessionOptions& o = probe.session();
  probe.configure();
  p.mpi_transport = read_mpi_transport(o.single_copy);
  check_single_copy(p.mpi_transport);
  p.clock = HostClock::create(o.clock);
  p.topo.emplace(Topology::discover());
  p.placement = place_rank(mpi, {o.device, o.gpu, o.bind}, *p.topo);
  probe.check(*p.placement.device, mpi);
}

// Ranks measure one after another: the probe has turns and --concurrent was not given.
bool in_turn(const Probe& probe) { return probe.traits().ranks_take_turns && !probe.session().concurrent; }

// The probe's optional parts, or the frame's defaults where it has none.
RunHooks& hooks_of(Probe& probe) {
  static RunHooks none;  // stateless: every part does nothing
  RunHooks* h = probe.hooks();
  return h != nullptr ? *h : none;
}

Json session_header(const Prepared& p, const Probe& probe, const std::string& key, const std::vector<std::string>& argv,
                    const MpiContext& mpi, bool resumed, const PinnedBuffer* pinned, const RunPlan& plan) {
  const Json placement = pinned != nullptr ? placement_json(p.placement, *p.topo, pinned->host(), pinned->size())
                                           : placement_json(p.placement, *p.topo);
  Json header = run_header({key, argv, p.placement.device_choice, probe.config_json(), resumed, placement,
                            p.topo->describe().to_json(), p.mpi_transport,
                            pinned != nullptr ? pinned->host() : nullptr},
                           *p.placement.device, mpi, *p.clock);
  if (plan.expected_records > 0) header["planned_records"] = plan.expected_records;
  if (probe.traits().ranks_take_turns && mpi.rank == 0) header["ranks_in_turn"] = in_turn(probe);
  return header;
}

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Where ranks may take turns, a record says when its rank began measuring and
// when the record was finished (wall clock, comparable across a node's ranks):
// turns that do not overlap are seen in the file.
void stamp_times(Json& record, const ProbeTraits& traits, double rank_started_unix_s) {
  if (!traits.ranks_take_turns) return;
  record["rank_started_unix_s"] = rank_started_unix_s;
  record["finished_unix_s"] = unix_seconds_now();
}

// A probe's record as the frame writes it: the rank that measured it, and when.
Json stamped(const Json& record, const ProbeTraits& traits, int rank, double rank_started_unix_s) {
  Json r = record;
  if (traits.rank_field) r["rank"] = rank;
  stamp_times(r, traits, rank_started_unix_s);
  return r;
}

// Gives back what the probe took for the run, also when a step throws.
struct ReleaseAtEnd {
  Probe& probe;
  ~ReleaseAtEnd() { hooks_of(probe).release(); }
};

// The Python module's path: this process alone, records kept in memory, the
// caller's CPU and memory binding given back afterwards.
int run_captured(Probe& probe, const std::string& key, const std::vector<std::string>& argv, SessionCapture& capture) {
  const MpiContext mpi = mpi_context(MPI_COMM_SELF);
  Prepared p;
  struct RestoreBinding {  // also when prepare() throws after binding
    const Prepared& p;
    ~RestoreBinding() {
      if (!p.placement.requested_cpuset.empty()) p.topo->unbind(p.placement.launcher_cpuset);
    }
  } restore{p};
  prepare(p, probe, mpi);
  probe.share(mpi);
  const ReleaseAtEnd release{probe};
  const PinnedBuffer* pinned = hooks_of(probe).allocate(*p.placement.device, *p.topo, mpi);
  capture.header = session_header(p, probe, key, argv, mpi, false, pinned, probe.plan(mpi, *p.topo));
  capture.records.clear();
  const double started = unix_seconds_now();
  const ProbeTraits traits = probe.traits();
  probe.measure(*p.placement.device, *p.clock, mpi, [&](const Json& record) {
    capture.records.push_back(stamped(record, traits, 0, started));
    if (capture.on_record) capture.on_record(capture.records.back());
  });
  return 0;
}

// --check-options: the options alone; no MPI, no device, no file.
int check_options_only(Probe& probe, const std::string& key) {
  try {
    probe.configure();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::usage) throw;
    std::fprintf(stderr, "hetprobe %s: error: %s\n", key.c_str(), user_message(e).c_str());
    record_error(e.kind(), user_message(e));
    return 2;
  }
  return 0;
}

// A mechanism this Open MPI lacks is refused before MPI_Init, where Open MPI
// would print its own warnings first; said once, by the first rank. Then MPI
// starts, with the mechanism asked for on every rank.
bool start_mpi(const Probe& probe, const std::string& key) {
  const SingleCopy single_copy = probe.session().single_copy;
  if (const std::string why = single_copy_unavailable(single_copy); !why.empty()) {
    if (first_launched_rank()) {
      std::fprintf(stderr, "hetprobe %s: error: %s\n", key.c_str(), why.c_str());
      record_error(ErrorKind::usage, why);
    }
    return false;
  }
  request_single_copy(single_copy);  // Open MPI reads it at MPI_Init, on every rank
  MPI_Init(nullptr, nullptr);
  return true;
}

// Every rank runs one command: ranks given other options (a launcher's
// MPMD form, a wrapper script that adds some) would measure different
// things and pair them, or wait in collectives the others never reach.
// A usage Error on each rank whose options are not rank 0's.
void check_one_command(const MpiContext& mpi, const std::vector<std::string>& argv) {
  const auto joined = [&](char between) {  // the options as given (argv[0] may differ: a path to the same program)
    std::string text;
    for (std::size_t i = 1; i < argv.size(); ++i) text += (i > 1 ? std::string(1, between) : "") + argv[i];
    return text;
  };
  const std::string mine = joined('\x1f');  // a separator no option holds: "a b" is not "a" "b"
  const std::string first = broadcast_string(mpi, mine);
  if (mine == first) return;
  std::string theirs = first;
  std::replace(theirs.begin(), theirs.end(), '\x1f', ' ');
  throw usage_error("rank " + std::to_string(mpi.rank) + " was given other options than rank 0 (`" + joined(' ') +
                    "` against `" + theirs + "`): every rank runs one command; give them all the same options");
}

// One run of a probe on MPI_COMM_WORLD, in the steps run_session calls in order.
class Session {
 public:
  Session(Probe& probe, const std::string& key, const std::vector<std::string>& argv)
      : probe_(probe),
        entry_(*find_probe(key)),
        hooks_(hooks_of(probe)),
        traits_(probe.traits()),
        key_(key),
        argv_(argv),
        o_(probe.session()),
        mpi_(mpi_context(MPI_COMM_WORLD)) {
    path_ = o_.out.empty() ? "hetprobe-" + key + "-" + utc_now_for_file_name() + ".jsonl" : o_.out;
    resume_ = !hooks_.resumable() ? Resume::unavailable : o_.resume ? Resume::on : Resume::off;
  }

  // Every check on every rank first; the file is created only once all pass.
  // False where a rank refused: it said why, and the run ends with exit 2.
  bool prepare() {
    return agreed_steps(mpi_, key_,
                        {[&] { check_one_command(mpi_, argv_); },  // first: later steps' collectives assume it
                         [&] {
                           hetprobe::cli::prepare(p_, probe_, mpi_);
                           if (mpi_.rank == 0) check_results_target(key_, path_, resume_);
                         },
                         [&] {
                           probe_.share(mpi_);  // every rank's check passed: each one is here
                           check_node_memory();
                           pinned_ = hooks_.allocate(*p_.placement.device, *p_.topo, mpi_);
                         },
                         [&] {
                           if (mpi_.rank == 0) done_text_ = open_output_file();
                         }});
  }

  // The header, and what the probe says before it measures.
  void start() {
    const std::size_t done = hooks_.resumable() ? hooks_.take_done(broadcast_string(mpi_, done_text_)) : 0;
    const RunPlan plan = probe_.plan(mpi_, *p_.topo);  // after take_done: a resumed run plans what is left
    header_ = session_header(p_, probe_, key_, argv_, mpi_, done > 0, pinned_, plan);
    const std::size_t total = plan.progress_total > 0 ? plan.progress_total : plan.expected_records;
    progress_.emplace(total, done);
    if (mpi_.rank != 0) return;
    writer_->write(header_);
    if (hooks_.begin(header_, path_, done) || o_.quiet) return;
    const Device& d = *p_.placement.device;
    std::fprintf(stderr, "hetprobe %s: %s; device %s (%s), timer tick %.3g ns; %d rank(s); results in %s\n",
                 key_.c_str(), p_.placement.device_choice.c_str(), d.info().name.c_str(), d.info().backend.c_str(),
                 d.info().timer_tick_ns, mpi_.size, path_.c_str());
  }

  // Every rank measures, in turns or at once. An Error ends the whole job,
  // once (another rank may be waiting inside MPI), saying what was kept.
  void measure() {
    install_interrupt_handlers();
    try {
      if (!in_turn(probe_)) {
        measure_here();
        interruptible_barrier(mpi_);  // a rank done first waits here, where Ctrl-C reaches it
        return;
      }
      // A rank waiting for its turn (or done with it) waits in the barrier,
      // asleep and where Ctrl-C reaches it. Each turn's records reach the
      // file before the next turn starts, so a run stopped later keeps them.
      for (int turn = 0; turn < mpi_.size; ++turn) {
        if (mpi_.rank == 0 && !o_.quiet && mpi_.size > 1) announce_turn(turn);
        if (turn == mpi_.rank) measure_here();
        interruptible_barrier(mpi_);
        if (turn > 0) collect(turn == mpi_.rank);
      }
    } catch (const Error& e) {
      abort_run(e);
    }
  }

  // Without turns, the other ranks' records, written by rank 0 after its own.
  void gather() {
    if (!in_turn(probe_)) collect(true);
  }

  // Rank 0 prints the run's tables; the probe gives back what it took.
  int finish() {
    if (mpi_.rank == 0) {
      std::vector<Json> records = mine_;
      records.insert(records.end(), others_.begin(), others_.end());
      if (!hooks_.print(header_, records))
        print_report(stdout, TableFormat::table, entry_.report(records_of_this_run(header_, records)));
      if (!o_.quiet) std::fprintf(stderr, "hetprobe %s: results in %s\n", key_.c_str(), path_.c_str());
    }
    hooks_.release();
    MPI_Finalize();
    return 0;
  }

  int refused() {
    hooks_.release();
    MPI_Finalize();
    return 2;
  }

 private:
  // The memory every rank of this node will take, checked against what the node has.
  void check_node_memory() {
    const RunPlan plan = probe_.plan(mpi_, *p_.topo);
    const std::uint64_t on_node = node_sum(mpi_, plan.host_bytes);
    if (on_node == 0) return;
    const std::string& what = plan.memory_what;
    check_memory_available(on_node, !what.empty() ? what
                                                  : "this " + key_ + " run (" + std::to_string(mpi_.node_size) +
                                                        " rank(s) on this node)");
  }

  // Rank 0: opens the results file; on --resume, the records already in it
  // (read_done's text) and a killed run's incomplete last line dropped.
  std::string open_output_file() {
    OpenedResults opened = open_results_for(key_, path_, resume_);
    writer_.emplace(std::move(opened.writer));
    if (opened.existing.records.empty() || !hooks_.resumable()) return "";
    std::string done = hooks_.read_done(opened.existing, *p_.placement.device);
    if (opened.existing.truncated_tail) {
      std::fprintf(stderr, "hetprobe: dropping an incomplete last line of %s (a killed run)\n", path_.c_str());
      drop_truncated_tail(path_, opened.existing);
    }
    return done;
  }

  // Rank 0, before turn `turn`: who measures now (rank 0's own turn is announced too).
  void announce_turn(int turn) const {
    const Json& device = header_.at("ranks").at(turn).at("device");
    std::fprintf(stderr, "hetprobe %s: turn %d of %zu: rank %d measures %s device %d (%s)\n", key_.c_str(), turn + 1,
                 header_.at("ranks").size(), turn, device.at("backend").get<std::string>().c_str(),
                 device.at("ordinal").get<int>(), device.at("name").get<std::string>().c_str());
  }

  void measure_here() {
    const double started = unix_seconds_now();
    probe_.measure(*p_.placement.device, *p_.clock, mpi_,
                   [&](const Json& record) { keep(stamped(record, traits_, mpi_.rank, started)); });
  }

  // A record of this rank's: rank 0 writes it at once, with its progress line.
  void keep(Json r) {
    if (mpi_.rank == 0) {
      writer_->write(r);
      hooks_.on_record(r);
      // Counted also under --quiet: an error says how far the run came.
      const std::string label = entry_.record_label(r);
      if (!label.empty()) {
        const std::string line = progress_->finished(label);
        if (!o_.quiet) std::fprintf(stderr, "%s\n", line.c_str());
      }
    }
    mine_.push_back(std::move(r));
    throw_if_interrupted();  // after the write: a record finished before Ctrl-C is kept
  }

  // Rank 0: the other ranks' records, written after they arrive.
  void collect(bool mine_to_send) {
    std::string packed;
    if (mpi_.rank != 0 && mine_to_send)
      for (const Json& r : mine_) packed += r.dump() + "\n";
    const auto all = gather_strings(mpi_, packed);
    if (mpi_.rank != 0) return;
    for (std::size_t rank = 1; rank < all.size(); ++rank) {
      std::size_t start = 0;
      for (std::size_t end; (end = all[rank].find('\n', start)) != std::string::npos; start = end + 1) {
        others_.push_back(Json::parse(all[rank].substr(start, end - start)));
        writer_->write(others_.back());
      }
    }
  }

  [[noreturn]] void abort_run(const Error& e) {
    std::fprintf(stderr, "[%s rank %d] %s error: %s\n", mpi_.host.c_str(), mpi_.rank, to_string(e.kind()),
                 user_message(e).c_str());
    record_error(e.kind(), user_message(e), mpi_.rank, mpi_.host);
    hooks_.release();  // stops any load still running
    if (mpi_.rank == 0 && hooks_.resumable())
      std::fprintf(stderr, "hetprobe %s: %zu of %zu points are in %s; --resume continues it\n", key_.c_str(),
                   progress_->done(), progress_->total(), path_.c_str());
    else if (mpi_.rank == 0)
      std::fprintf(stderr, "hetprobe %s: %zu finished record(s) are in %s\n", key_.c_str(), mine_.size(),
                   path_.c_str());
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, exit_code_for(e.kind()));
    std::abort();  // MPI_Abort does not return
  }

  Probe& probe_;
  const ProbeEntry& entry_;  // its table line: its report and record labels
  RunHooks& hooks_;
  const ProbeTraits traits_;
  const std::string& key_;
  const std::vector<std::string>& argv_;
  const SessionOptions& o_;
  const MpiContext mpi_;
  std::filesystem::path path_;
  Resume resume_;
  Prepared p_;
  const PinnedBuffer* pinned_ = nullptr;
  std::optional<ResultsWriter> writer_;
  std::string done_text_;  // rank 0: what a resumed file holds already
  Json header_;
  std::optional<Progress> progress_;
  std::vector<Json> mine_, others_;
};

}  // namespace

bool agreed_steps(const MpiContext& mpi, const std::string& probe, std::initializer_list<std::function<void()>> steps) {
  for (const auto& step : steps) {
    std::string error;
    ErrorKind kind = ErrorKind::usage;
    try {
      step();
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::usage && e.kind() != ErrorKind::unsupported) throw;
      error = e.what();
      kind = e.kind();
    }
    const int failed = first_failed_rank(mpi, !error.empty());
    if (failed == mpi.rank) {
      std::fprintf(stderr, "hetprobe %s: %s: %s\n", probe.c_str(),
                   kind == ErrorKind::usage ? "error" : "unsupported error", error.c_str());
      record_error(kind, error, mpi.rank, mpi.host);
    }
    if (failed >= 0) return false;
  }
  return true;
}

CommandFn add_probe_command(CLI::App& app, const ProbeEntry& entry, const CommandEnv& env) {
  std::shared_ptr<Probe> probe = entry.make();
  probe->add_options(*app.add_subcommand(entry.key, probe->traits().description));
  return [probe, key = std::string(entry.key), env](const std::vector<std::string>& argv) {
    return run_session(*probe, key, argv, env);
  };
}

int run_session(Probe& probe, const std::string& key, const std::vector<std::string>& argv, const CommandEnv& env) {
  if (probe.session().check_options) return check_options_only(probe, key);
  if (env.capture) return run_captured(probe, key, argv, *env.capture);
  if (!start_mpi(probe, key)) return 2;
  Session session(probe, key, argv);
  if (!session.prepare()) return session.refused();
  session.start();
  session.measure();
  session.gather();
  return session.finish();
}

}  // namespace hetprobe::cli
