#include "bench/cli/probe_session.hpp"

#include "bench/cli/command.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/core/mpi_context.hpp"
#include "bench/core/mpi_transport.hpp"
#include "bench/core/placement.hpp"
#include "bench/core/progress.hpp"
#include "bench/core/record_label.hpp"
#include "bench/core/results.hpp"
#include "bench/core/run_header.hpp"

namespace hetprobe::cli {

void add_session_options(CLI::App* c, SessionOptions& o, const std::string& probe) {
  add_device_option(c, o.device);
  add_gpu_option(c, o.gpu);
  add_out_option(c, o.out,
                 "Results file, JSON Lines (default: hetprobe-" + probe + "-YYYYMMDDTHHMMSSZ.jsonl, the UTC time)");
  add_clock_option(c, o.clock);
  add_bind_option(c, o.bind);
  add_quiet_flag(c, o.quiet);
  c->add_flag("--check-options", o.check_options,
              "Only check the options (exit code 0, or 2 with the message): nothing is measured or written, and "
              "what needs the device or the ranks is checked when the run starts (hetprobe characterize checks "
              "each step's options so before it runs any)");
}

void add_concurrent_flag(CLI::App* c, SessionOptions& o) {
  c->add_flag("--concurrent", o.concurrent,
              "Measure on every rank at once; without it ranks measure one after another (rank 0 first), so "
              "devices do not disturb each other");
}

void add_single_copy_option(CLI::App* c, SessionOptions& o) {
  c->add_option("--single-copy", o.single_copy,
                "Open MPI's single-copy mechanism for large messages between ranks of a node: keep (what Open MPI "
                "and its environment choose), none (copy in, copy out through shared memory), cma, xpmem or knem; "
                "one per run (it is fixed at MPI_Init); the run stops if Open MPI does not take it")
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            return is_single_copy_name(name) ? "" : "'" + name + "' is not " + single_copy_names();
          },
          single_copy_names()))
      ->capture_default_str();
}

namespace {

// What a session needs before it measures: checked config, clock, topology,
// the rank placed (device opened, process bound). Throws usage Errors.
struct Prepared {
  Json config;
  std::optional<HostClock> clock;
  std::optional<Topology> topo;
  RankPlacement placement;
  Json mpi_transport;
};

void prepare(Prepared& p, const ProbeSession& session, const SessionOptions& o, const MpiContext& mpi) {
  p.config = session.configure();
  p.mpi_transport = read_mpi_transport(o.single_copy);
  check_single_copy(p.mpi_transport);
  p.clock = HostClock::create(o.clock);
  p.topo.emplace(Topology::discover());
  p.placement = place_rank(mpi, {o.device, o.gpu, o.bind}, *p.topo);
  if (session.check) session.check(*p.placement.device);
  if (session.check_ranks) session.check_ranks(mpi);
  if (session.device_config) p.config = session.device_config();
}

// Ranks measure one after another: the probe has turns and --concurrent was not given.
bool in_turn(const ProbeSession& session, const SessionOptions& o) { return session.ranks_take_turns && !o.concurrent; }

Json session_header(const Prepared& p, const ProbeSession& session, const SessionOptions& o,
                    const std::vector<std::string>& argv, const MpiContext& mpi, bool resumed,
                    const PinnedBuffer* pinned) {
  const Json placement = pinned != nullptr ? placement_json(p.placement, *p.topo, pinned->host(), pinned->size())
                                           : placement_json(p.placement, *p.topo);
  Json header = run_header({session.probe, argv, p.placement.device_choice, p.config, resumed, placement,
                            p.topo->describe().to_json(), p.mpi_transport,
                            pinned != nullptr ? pinned->host() : nullptr},
                           *p.placement.device, mpi, *p.clock);
  if (session.expected_records) header["planned_records"] = session.expected_records();
  if (session.ranks_take_turns && mpi.rank == 0) header["ranks_in_turn"] = in_turn(session, o);
  return header;
}

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Where ranks may take turns, a record says when its rank began measuring and
// when the record was finished (wall clock, comparable across a node's ranks):
// turns that do not overlap are seen in the file.
void stamp_times(Json& record, const ProbeSession& session, double rank_started_unix_s) {
  if (!session.ranks_take_turns) return;
  record["rank_started_unix_s"] = rank_started_unix_s;
  record["finished_unix_s"] = unix_seconds_now();
}

// Rank 0, before turn `turn`: who measures now (rank 0's own turn is announced too).
void announce_turn(const ProbeSession& session, const Json& header, int turn) {
  const Json& device = header.at("ranks").at(turn).at("device");
  std::fprintf(stderr, "hetprobe %s: turn %d of %zu: rank %d measures %s device %d (%s)\n", session.probe.c_str(),
               turn + 1, header.at("ranks").size(), turn, device.at("backend").get<std::string>().c_str(),
               device.at("ordinal").get<int>(), device.at("name").get<std::string>().c_str());
}

// The Python module's path: this process alone, records kept in memory, the
// caller's CPU and memory binding given back afterwards.
int run_captured(const ProbeSession& session, const SessionOptions& o, const std::vector<std::string>& argv,
                 SessionCapture& capture) {
  const MpiContext mpi = mpi_context(MPI_COMM_SELF);
  Prepared p;
  struct RestoreBinding {  // also when prepare() throws after binding
    const Prepared& p;
    ~RestoreBinding() {
      if (!p.placement.requested_cpuset.empty()) p.topo->unbind(p.placement.launcher_cpuset);
    }
  } restore{p};
  prepare(p, session, o, mpi);
  struct Release {  // also when measuring throws
    const ProbeSession& session;
    ~Release() {
      if (session.release) session.release();
    }
  } release{session};
  const PinnedBuffer* pinned = session.allocate ? session.allocate(*p.placement.device, *p.topo, mpi) : nullptr;
  capture.header = session_header(p, session, o, argv, mpi, false, pinned);
  capture.records.clear();
  const double started = unix_seconds_now();
  session.measure(*p.placement.device, *p.clock, mpi, [&](const Json& record) {
    Json r = record;
    if (session.rank_field) r["rank"] = 0;
    stamp_times(r, session, started);
    capture.records.push_back(std::move(r));
    if (capture.on_record) capture.on_record(capture.records.back());
  });
  return 0;
}

// The memory every rank of this node will take, checked against what the node has.
void check_node_memory(const ProbeSession& session, const Prepared& p, const MpiContext& mpi) {
  const std::uint64_t bytes = session.host_bytes ? session.host_bytes(mpi, *p.topo) : 0;
  const std::uint64_t on_node = node_sum(mpi, bytes);
  if (on_node == 0) return;
  check_memory_available(on_node, session.memory_what ? session.memory_what(mpi)
                                                      : "this " + session.probe + " run (" +
                                                            std::to_string(mpi.node_size) + " rank(s) on this node)");
}

// Rank 0: opens the results file; on --resume, the records already in it
// (read_done's text) and a killed run's incomplete last line dropped.
std::string open_output(const ProbeSession& session, const std::filesystem::path& path, Resume resume,
                        const Device& device, std::optional<ResultsWriter>& writer) {
  OpenedResults opened = open_results_for(session.probe, path, resume);
  writer.emplace(std::move(opened.writer));
  if (opened.existing.records.empty() || !session.read_done) return "";
  std::string done = session.read_done(opened.existing, device);
  if (opened.existing.truncated_tail) {
    std::fprintf(stderr, "hetprobe: dropping an incomplete last line of %s (a killed run)\n", path.c_str());
    drop_truncated_tail(path, opened.existing);
  }
  return done;
}

}  // namespace

bool agreed_steps(const MpiContext& mpi, const std::string& probe, std::initializer_list<std::function<void()>> steps) {
  for (const auto& step : steps) {
    std::string error;
    try {
      step();
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::usage && e.kind() != ErrorKind::unsupported) throw;
      error = e.what();
    }
    const int failed = first_failed_rank(mpi, !error.empty());
    if (failed == mpi.rank) std::fprintf(stderr, "hetprobe %s: error: %s\n", probe.c_str(), error.c_str());
    if (failed >= 0) return false;
  }
  return true;
}

int run_session(const ProbeSession& session, const SessionOptions& o, const std::vector<std::string>& argv,
                const CommandEnv& env) {
  if (o.check_options) {  // no MPI, no device, no file
    try {
      session.configure();
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::usage) throw;
      std::fprintf(stderr, "hetprobe %s: error: %s\n", session.probe.c_str(), user_message(e).c_str());
      return 2;
    }
    return 0;
  }
  if (env.capture) return run_captured(session, o, argv, *env.capture);
  // A mechanism this Open MPI lacks is refused before MPI_Init, where Open
  // MPI would print its own warnings first; said once, by the first rank.
  if (const std::string why = single_copy_unavailable(o.single_copy); !why.empty()) {
    if (first_launched_rank()) std::fprintf(stderr, "hetprobe %s: error: %s\n", session.probe.c_str(), why.c_str());
    return 2;
  }
  request_single_copy(o.single_copy);  // Open MPI reads it at MPI_Init, on every rank
  MPI_Init(nullptr, nullptr);
  const MpiContext mpi = mpi_context(MPI_COMM_WORLD);
  Prepared p;
  std::optional<ResultsWriter> writer;
  std::filesystem::path path = o.out.empty() ? "hetprobe-" + session.probe + "-" + utc_now_for_file_name() + ".jsonl"
                                             : o.out;
  const Resume resume = !session.read_done ? Resume::unavailable : o.resume ? Resume::on : Resume::off;
  const PinnedBuffer* pinned = nullptr;
  std::string done_text;  // rank 0: what a resumed file holds already
  auto release = [&] {
    if (session.release) session.release();
  };
  // Every check on every rank first; the file is created only once all pass.
  const bool ok = agreed_steps(mpi, session.probe,
                               {[&] {
                                  prepare(p, session, o, mpi);
                                  if (mpi.rank == 0) check_results_target(session.probe, path, resume);
                                },
                                [&] {
                                  check_node_memory(session, p, mpi);
                                  if (session.allocate) pinned = session.allocate(*p.placement.device, *p.topo, mpi);
                                },
                                [&] {
                                  if (mpi.rank == 0)
                                    done_text = open_output(session, path, resume, *p.placement.device, writer);
                                }});
  if (!ok) {
    release();
    MPI_Finalize();
    return 2;
  }
  const std::size_t done = session.take_done ? session.take_done(broadcast_string(mpi, done_text)) : 0;
  Device* device = p.placement.device.get();
  const std::string& why = p.placement.device_choice;
  const Json header = session_header(p, session, o, argv, mpi, done > 0, pinned);
  if (mpi.rank == 0) {
    writer->write(header);
    if (session.begin) session.begin(header, path, done);
    else if (!o.quiet)
      std::fprintf(stderr, "hetprobe %s: %s; device %s (%s), timer tick %.3g ns; %d rank(s); results in %s\n",
                   session.probe.c_str(), why.c_str(), device->info().name.c_str(), device->info().backend.c_str(),
                   device->info().timer_tick_ns, mpi.size, path.c_str());
  }
  install_interrupt_handlers();
  std::vector<Json> mine;
  const std::size_t total = session.progress_total     ? session.progress_total()
                            : session.expected_records ? session.expected_records()
                                                       : 0;
  Progress progress(total, done);
  double started = 0;  // when this rank began measuring
  const RecordSink sink = [&](const Json& record) {
    Json r = record;
    if (session.rank_field) r["rank"] = mpi.rank;
    stamp_times(r, session, started);
    if (mpi.rank == 0) {
      writer->write(r);
      if (session.on_record) session.on_record(r);
      // Counted also under --quiet: an error says how far the run came.
      const std::string label = session.progress_label ? session.progress_label(r) : record_label(r);
      if (!label.empty()) {
        const std::string line = progress.finished(label);
        if (!o.quiet) std::fprintf(stderr, "%s\n", line.c_str());
      }
    }
    mine.push_back(std::move(r));
    throw_if_interrupted();  // after the write: a record finished before Ctrl-C is kept
  };
  const auto measure = [&] {
    started = unix_seconds_now();
    session.measure(*device, *p.clock, mpi, sink);
  };
  // Rank 0: the other ranks' records, written after they arrive.
  std::vector<Json> others;
  const auto collect = [&](bool mine_to_send) {
    std::string packed;
    if (mpi.rank != 0 && mine_to_send)
      for (const Json& r : mine) packed += r.dump() + "\n";
    const auto all = gather_strings(mpi, packed);
    if (mpi.rank != 0) return;
    for (std::size_t rank = 1; rank < all.size(); ++rank) {
      std::size_t start = 0;
      for (std::size_t end; (end = all[rank].find('\n', start)) != std::string::npos; start = end + 1) {
        others.push_back(Json::parse(all[rank].substr(start, end - start)));
        writer->write(others.back());
      }
    }
  };
  try {
    if (in_turn(session, o)) {
      // A rank waiting for its turn (or done with it) waits in the barrier,
      // asleep and where Ctrl-C reaches it. Each turn's records reach the
      // file before the next turn starts, so a run stopped later keeps them.
      for (int turn = 0; turn < mpi.size; ++turn) {
        if (mpi.rank == 0 && !o.quiet && mpi.size > 1) announce_turn(session, header, turn);
        if (turn == mpi.rank) measure();
        interruptible_barrier(mpi);
        if (turn > 0) collect(turn == mpi.rank);
      }
    } else {
      measure();
      interruptible_barrier(mpi);  // a rank done first waits here, where Ctrl-C reaches it
    }
  } catch (const Error& e) {
    // Another rank may be waiting inside MPI: end the whole job, once.
    std::fprintf(stderr, "[%s rank %d] %s error: %s\n", mpi.host.c_str(), mpi.rank, to_string(e.kind()),
                 user_message(e).c_str());
    release();  // stops any load still running
    if (mpi.rank == 0 && session.read_done)
      std::fprintf(stderr, "hetprobe %s: %zu of %zu points are in %s; --resume continues it\n", session.probe.c_str(),
                   progress.done(), progress.total(), path.c_str());
    else if (mpi.rank == 0)
      std::fprintf(stderr, "hetprobe %s: %zu finished record(s) are in %s\n", session.probe.c_str(), mine.size(),
                   path.c_str());
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, exit_code_for(e.kind()));
  }
  // Without turns, the other ranks' records are written by rank 0 after its own.
  if (!in_turn(session, o)) collect(true);
  if (mpi.rank == 0) {
    std::vector<Json> records = mine;
    records.insert(records.end(), others.begin(), others.end());
    session.print(header, records);
    if (!o.quiet) std::fprintf(stderr, "hetprobe %s: results in %s\n", session.probe.c_str(), path.c_str());
  }
  release();
  MPI_Finalize();
  return 0;
}

}  // namespace hetprobe::cli
