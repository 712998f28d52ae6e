#include "probe_session.hpp"

#include "command.hpp"

#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "hetprobe/errors.hpp"
#include "hetprobe/interrupt.hpp"
#include "hetprobe/mpi_context.hpp"
#include "hetprobe/notify_table.hpp"
#include "hetprobe/placement.hpp"
#include "hetprobe/run_header.hpp"

namespace hetprobe::cli {

void add_session_options(CLI::App* c, SessionOptions& o, const std::string& probe) {
  c->add_option("--device", o.device, "Backend: auto (a GPU if there is one, else host), cuda, hip, host")
      ->capture_default_str();
  c->add_option("--gpu", o.gpu, "Device ordinal within the backend (default: the rank's node-local index)");
  c->add_option("--out", o.out, "Results file, JSON Lines (default: hetprobe-" + probe + "-<UTC time>.jsonl)");
  c->add_option("--clock", o.clock, "Host clock for timing: auto, tsc or steady")->capture_default_str();
  add_bind_option(c, o.bind);
  c->add_flag("--quiet", o.quiet, "No progress lines on stderr");
}


int run_session(const ProbeSession& session, const SessionOptions& o, const std::vector<std::string>& argv) {
  MPI_Init(nullptr, nullptr);
  const MpiContext mpi = mpi_context(MPI_COMM_WORLD);
  Json config;
  std::optional<Topology> topo;
  RankPlacement placement;
  std::string error;
  std::optional<HostClock> clock;
  std::optional<ResultsWriter> writer;
  std::filesystem::path path = o.out.empty() ? "hetprobe-" + session.probe + "-" + utc_now_iso8601() + ".jsonl" : o.out;
  try {
    config = session.configure();
    clock = HostClock::create(o.clock);
    topo.emplace(Topology::discover());
    placement = place_rank(mpi, {o.device, o.gpu, o.bind}, *topo);
    if (session.check) session.check(*placement.device);
    if (mpi.rank == 0) {
      if (std::filesystem::exists(path) && std::filesystem::file_size(path) > 0)
        throw usage_error(path.string() + " already has results: choose another --out");
      writer.emplace(path);
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::usage) throw;
    error = e.what();
  }
  const int failed = first_failed_rank(mpi, !error.empty());
  if (failed >= 0) {
    if (failed == mpi.rank) std::fprintf(stderr, "hetprobe %s: error: %s\n", session.probe.c_str(), error.c_str());
    MPI_Finalize();
    return 2;
  }
  Device* device = placement.device.get();
  const std::string& why = placement.device_choice;
  const Json header = run_header({session.probe, argv, why, config, false, placement_json(placement, *topo),
                                  topo->describe().to_json()},
                                 *device, mpi, *clock);
  if (mpi.rank == 0) {
    writer->write(header);
    if (!o.quiet)
      std::fprintf(stderr, "hetprobe %s: %s; device %s (%s), timer tick %.3g ns; %d rank(s); results in %s\n",
                   session.probe.c_str(), why.c_str(), device->info().name.c_str(), device->info().backend.c_str(),
                   device->info().timer_tick_ns, mpi.size, path.c_str());
  }
  install_interrupt_handlers();
  std::vector<Json> mine;
  try {
    session.measure(*device, *clock, [&](const Json& record) {
      if (interrupted()) throw Error(ErrorKind::interrupted, "interrupted by signal " + std::to_string(interrupt_signal()));
      Json r = record;
      r["rank"] = mpi.rank;
      if (mpi.rank == 0) writer->write(r);
      if (!o.quiet && mpi.rank == 0) std::fprintf(stderr, "[%s] %s\n", session.probe.c_str(), record_label(r).c_str());
      mine.push_back(std::move(r));
    });
  } catch (const Error& e) {
    std::fprintf(stderr, "[%s rank %d] %s error: %s [%s]\n", mpi.host.c_str(), mpi.rank, to_string(e.kind()), e.what(),
                 e.where().c_str());
    if (mpi.rank == 0)
      std::fprintf(stderr, "hetprobe %s: %zu finished record(s) are in %s\n", session.probe.c_str(), mine.size(),
                   path.c_str());
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, exit_code_for(e.kind()));
  }
  // The other ranks' records, written by rank 0 after its own.
  std::string packed;
  for (const Json& r : mine) packed += r.dump() + "\n";
  const auto all = gather_strings(mpi, packed);
  if (mpi.rank == 0) {
    std::vector<Json> records = mine;
    for (std::size_t rank = 1; rank < all.size(); ++rank) {
      std::size_t start = 0;
      for (std::size_t end; (end = all[rank].find('\n', start)) != std::string::npos; start = end + 1) {
        records.push_back(Json::parse(all[rank].substr(start, end - start)));
        writer->write(records.back());
      }
    }
    session.print(header, records);
    if (!o.quiet) std::fprintf(stderr, "hetprobe %s: results in %s\n", session.probe.c_str(), path.c_str());
  }
  MPI_Finalize();
  return 0;
}

}  // namespace hetprobe::cli
