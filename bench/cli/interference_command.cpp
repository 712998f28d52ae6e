// `hetprobe interference`: options, validation agreed by both ranks, the
// results file (new or resumed), the table and progress.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "command.hpp"
#include "hetprobe/errors.hpp"
#include "hetprobe/interference.hpp"
#include "hetprobe/interference_table.hpp"
#include "hetprobe/interrupt.hpp"
#include "hetprobe/placement.hpp"
#include "hetprobe/run_header.hpp"
#include "hetprobe/sizes.hpp"

namespace hetprobe::cli {

namespace {

struct Options {
  std::string sizes = "1KiB:64MiB:x4";
  std::string osu_range, begin, end, factor = "2";
  std::string layouts = "all";
  std::string access = "stream,stacked";
  std::string send = "send";
  std::string writer = "sender";
  std::string secondary;
  int reps = 50, warmup = 5;
  double timeout_s = 30;
  std::string device = "auto";
  int gpu = -1;
  std::string bind = "near-gpu";
  std::string out;
  bool resume = false, no_check = false, quiet = false;
  std::string clock = "auto";
};

std::vector<Access> parse_access_list(const std::string& text) {
  std::vector<Access> out;
  for (const auto& item : CLI::detail::split(text, ',')) {
    const Access a = item == "stream" ? Access::stream
                     : item == "stacked" ? Access::stacked
                     : throw usage_error("unknown access mode '" + item + "' (expected stream, stacked)");
    if (std::find(out.begin(), out.end(), a) != out.end())
      throw usage_error("access mode " + item + " is listed twice");
    out.push_back(a);
  }
  return out;
}

InterferenceConfig build_config(const Options& o) {
  InterferenceConfig c;
  std::string sizes = o.sizes;
  if (!o.osu_range.empty()) sizes = o.osu_range.find(':') == std::string::npos ? "1:" + o.osu_range : o.osu_range;
  if (!o.begin.empty() || !o.end.empty()) {
    if (o.begin.empty() || o.end.empty()) throw usage_error("-b and -e go together");
    sizes = o.begin + ":" + o.end + ":x" + o.factor;
  }
  c.sizes = parse_size_list(sizes);
  for (std::uint64_t s : c.sizes)
    if (s > 0x7FFFFFFFull) throw usage_error("size " + format_size(s) + " is above MPI's int count (2 GiB - 1)");
  c.layouts = parse_layout_list(o.layouts);
  c.access = parse_access_list(o.access);
  if (o.send != "send" && o.send != "isend") throw usage_error("--send " + o.send + ": expected send or isend");
  c.send_mode = o.send == "send" ? SendMode::send : SendMode::isend;
  if (o.writer == "sender") c.writer = WriterSide::sender;
  else if (o.writer == "receiver") c.writer = WriterSide::receiver;
  else if (o.writer == "both") c.writer = WriterSide::both;
  else throw usage_error("--writer " + o.writer + ": expected sender, receiver or both");
  c.secondary_bytes = o.secondary.empty() ? 0 : parse_size(o.secondary);
  if (o.reps < 1) throw usage_error("--reps must be at least 1");
  if (o.warmup < 0) throw usage_error("--warmup must not be negative");
  if (!(o.timeout_s > 0)) throw usage_error("--timeout must be positive (seconds)");
  c.reps = o.reps;
  c.warmup = o.warmup;
  c.timeout_s = o.timeout_s;
  c.check_payload = !o.no_check;
  return c;
}

// Rank 0's view of the results file: where it goes and what is already done.
struct Output {
  std::filesystem::path path;
  std::optional<ResultsWriter> writer;
  std::set<PointKey> done;
  std::map<std::pair<std::uint64_t, Access>, double> ssb_medians;
};

// Opens the results file, reading back a resumed one. Only on rank 0.
void open_output(const Options& o, const Json& config, const Device& device, Output& out) {
  out.path = o.out.empty() ? "hetprobe-interference-" + utc_now_iso8601() + ".jsonl" : o.out;
  const bool exists = std::filesystem::exists(out.path) && std::filesystem::file_size(out.path) > 0;
  if (exists && !o.resume)
    throw usage_error(out.path.string() + " already has results: add --resume to continue it, or choose another --out");
  out.writer.emplace(out.path);  // locks the file before it is read
  if (exists) {
    const ResultsFile file = read_results(out.path);
    const Json* header = nullptr;
    for (const Json& r : file.records) {
      if (r.value("record", "") == "header") header = &r;
      else if (r.value("record", "") == "point") {
        const PointKey k = point_key_of(r);
        out.done.insert(k);
        if (k.layout == Layout::SSB) out.ssb_medians[{k.size, k.access}] = r["send_time_ns"]["median"].get<double>();
      }
    }
    if (header == nullptr || header->value("probe", "") != "interference")
      throw usage_error(out.path.string() + " is not an interference results file");
    for (const char* key : {"send_mode", "writer_side", "secondary_bytes", "reps", "warmup", "check_payload"})
      if ((*header)["config"][key] != config[key])
        throw usage_error("--resume: " + out.path.string() + " was written with " + key + " = " +
                          (*header)["config"][key].dump() + ", this run has " + config[key].dump());
    if ((*header)["backend"] != device.info().backend)
      throw usage_error("--resume: " + out.path.string() + " was measured on the " +
                        (*header)["backend"].get<std::string>() + " backend");
    if (file.truncated_tail) {
      std::fprintf(stderr, "hetprobe: dropping an incomplete last line of %s (a killed run)\n", out.path.c_str());
      drop_truncated_tail(out.path, file);
    }
  }
}

std::string done_to_string(const std::set<PointKey>& done) {
  Json j = Json::array();
  for (const auto& k : done) j.push_back({k.size, static_cast<int>(k.layout), static_cast<int>(k.access)});
  return j.dump();
}

std::set<PointKey> done_from_string(const std::string& s) {
  std::set<PointKey> done;
  for (const auto& k : Json::parse(s))
    done.insert({k[0].get<std::uint64_t>(), static_cast<Layout>(k[1].get<int>()), static_cast<Access>(k[2].get<int>())});
  return done;
}

int run(const Options& o, const std::vector<std::string>& argv) {
  MPI_Init(nullptr, nullptr);
  const MpiContext mpi = mpi_context(MPI_COMM_WORLD);
  // Everything that can be wrong with the input is found here, on every rank,
  // before anything is written; the lowest failing rank says what.
  InterferenceConfig cfg;
  std::optional<Topology> topo;
  RankPlacement placement;
  Device* device = nullptr;
  PinnedBuffer memory;
  Output out;
  std::optional<HostClock> clock;
  std::string error;
  try {
    cfg = build_config(o);
    clock = HostClock::create(o.clock);
    topo.emplace(Topology::discover());
    placement = place_rank(mpi, {o.device, o.gpu, o.bind}, *topo);
    device = placement.device.get();
    // After binding, so the pages land on the bound NUMA node.
    memory = device->alloc_pinned(interference_allocation_bytes(cfg));
    if (mpi.size != 2)
      throw usage_error("the interference probe uses exactly 2 MPI ranks (rank 0 sends, rank 1 receives); got " +
                        std::to_string(mpi.size) + ". Run it as: mpirun -np 2 hetprobe interference ...");
    if (mpi.rank == 0) open_output(o, cfg.to_json(), *device, out);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::usage) throw;
    error = e.what();
  }
  const int failed = first_failed_rank(mpi, !error.empty());
  if (failed >= 0) {
    if (failed == mpi.rank) std::fprintf(stderr, "hetprobe interference: error: %s\n", error.c_str());
    MPI_Finalize();
    return 2;
  }
  const std::set<PointKey> done = done_from_string(broadcast_string(mpi, done_to_string(out.done)));
  const std::string& device_choice = placement.device_choice;
  const Json header = run_header({"interference", argv, device_choice, cfg.to_json(), !done.empty(),
                                  placement_json(placement, *topo, memory.host(), memory.size()),
                                  topo->describe().to_json()},
                                 *device, mpi, *clock);
  InterferenceTable table(stdout);
  const std::size_t total = sweep_points(cfg).size();
  std::size_t finished = done.size();
  if (mpi.rank == 0) {
    out.writer->write(header);
    std::fprintf(stderr, "hetprobe interference: %s; device %s (%s); %zu points (%zu already in %s)\n",
                 device_choice.c_str(), device->info().name.c_str(), device->info().backend.c_str(), total,
                 finished, out.path.c_str());
    table.print_heading(header);
  }
  install_interrupt_handlers();
  const auto t_start = std::chrono::steady_clock::now();
  try {
  run_interference(cfg, *device, memory, mpi, *clock, done, [&](const PointData& p) {
    std::optional<double> ssb;
    if (auto it = out.ssb_medians.find({p.key.size, p.key.access}); it != out.ssb_medians.end()) ssb = it->second;
    const Json record = point_record(cfg, p, *device, ssb);
    if (p.key.layout == Layout::SSB) out.ssb_medians[{p.key.size, p.key.access}] = record["send_time_ns"]["median"].get<double>();
    out.writer->write(record);
    table.print_row(record);
    ++finished;
    if (!o.quiet)
      std::fprintf(stderr, "[%zu/%zu] %s %s %s: median %.3f us, %.0f s elapsed\n", finished, total,
                   format_size(p.key.size).c_str(), to_string(p.key.access), to_string(p.key.layout),
                   record["send_time_ns"]["median"].get<double>() / 1e3,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count());
  });
  } catch (const Error& e) {
    // The other rank may be waiting inside MPI: end the whole job, once.
    std::fprintf(stderr, "[%s rank %d] %s error: %s [%s]\n", mpi.host.c_str(), mpi.rank, to_string(e.kind()),
                 e.what(), e.where().c_str());
    if (mpi.rank == 0)
      std::fprintf(stderr, "hetprobe interference: %zu of %zu points are in %s; --resume continues it\n",
                   finished, total, out.path.c_str());
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, exit_code_for(e.kind()));
  }
  if (mpi.rank == 0) {
    table.print_footer(header);
    std::fprintf(stderr, "hetprobe interference: results in %s\n", out.path.c_str());
  }
  MPI_Finalize();
  return 0;
}

}  // namespace

CommandFn add_interference_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("interference",
      "Time MPI_Send on rank 0 while a device writer writes pinned host memory in 4 buffer layouts "
      "(SSB, PSB, PCB, P2AB) and 2 access modes (stream, stacked). Needs exactly 2 MPI ranks: "
      "mpirun -np 2 hetprobe interference ...");
  c->add_option("--sizes", o->sizes,
                "Message sizes in bytes: a list (8,1KiB,4MiB), a geometric range (1KiB:64MiB:x2) or an "
                "arithmetic one (1KiB:1MiB:+64KiB). KiB/MiB/GiB and bare K/M/G are powers of 2, KB/MB/GB "
                "powers of 10")->capture_default_str();
  c->add_option("-m", o->osu_range, "OSU-style range [MIN:]MAX, doubling (alias of --sizes MIN:MAX:x2)");
  c->add_option("-b", o->begin, "nccl-tests-style first size (with -e, -f)");
  c->add_option("-e", o->end, "nccl-tests-style last size");
  c->add_option("-f", o->factor, "nccl-tests-style size factor")->capture_default_str();
  c->add_option("--layouts", o->layouts, "Buffer layouts: all, or a list of SSB,PSB,PCB,P2AB (SSB runs first: "
                "it is the baseline)")->capture_default_str();
  c->add_option("--access", o->access, "Device access modes: stream (1 block x max threads), stacked (all "
                "co-resident blocks, grid-synchronised)")->capture_default_str();
  c->add_option("--send", o->send, "send: time MPI_Send call to return; isend: time MPI_Isend + MPI_Wait")
      ->capture_default_str();
  c->add_option("--writer", o->writer, "Where the device writer runs: sender, receiver or both")
      ->capture_default_str();
  c->add_option("--secondary-size", o->secondary, "Bytes of the PCB/P2AB secondary buffer (default: the message size)");
  c->add_option("--reps", o->reps, "Timed samples per point")->capture_default_str();
  c->add_option("--warmup", o->warmup, "Untimed full samples per point before the timed ones")->capture_default_str();
  c->add_option("--timeout", o->timeout_s, "Seconds any wait (host or device) may take before the run stops "
                "with an error")->capture_default_str();
  c->add_option("--device", o->device, "Backend: auto (a GPU if there is one, else host), cuda, hip, host")
      ->capture_default_str();
  c->add_option("--gpu", o->gpu, "Device ordinal within the backend (default: the rank's node-local index, round "
                "robin over the node's devices)");
  add_bind_option(c, o->bind);
  c->add_option("--out", o->out, "Results file, JSON Lines (default: hetprobe-interference-<UTC time>.jsonl)");
  c->add_flag("--resume", o->resume, "Continue --out: skip the points it already holds");
  c->add_option("--clock", o->clock, "Host clock for timing: auto, tsc or steady")->capture_default_str();
  c->add_flag("--no-check", o->no_check, "Skip the receiver's payload check");
  c->add_flag("--quiet", o->quiet, "No progress lines on stderr");
  return [o](const std::vector<std::string>& argv) { return run(*o, argv); };
}

}  // namespace hetprobe::cli
