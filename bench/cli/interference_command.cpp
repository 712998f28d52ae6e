// `hetprobe interference`: options, validation agreed by both ranks, the
// results file (new or resumed), the table and progress.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <filesystem>
#include <memory>
#include <optional>

#include "command.hpp"
#include "hetprobe/errors.hpp"
#include "hetprobe/host_stream.hpp"
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
  std::string load, load_bytes, load_rate, load_gpus, load_devices;  // "": the default (or --paper's)
  bool paper = false, no_host_stream = false;
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
  c.paper = o.paper;
  if (c.paper && (!o.load.empty() || !o.load_rate.empty() || !o.load_gpus.empty() || !o.load_devices.empty()))
    throw usage_error("--paper is the paper's writer on the sender's GPU at full rate: it takes no --load, "
                      "--load-rate, --load-gpus or --load-devices");
  c.loads = parse_load_kinds(o.load.empty() ? "write" : o.load);
  c.load_bytes = parse_load_bytes(o.load_bytes.empty() ? (c.paper ? "message" : "auto") : o.load_bytes);
  c.rates = parse_load_rates(o.load_rate.empty() ? "1" : o.load_rate);
  if (o.reps < 1) throw usage_error("--reps must be at least 1");
  if (o.warmup < 0) throw usage_error("--warmup must not be negative");
  if (!(o.timeout_s > 0)) throw usage_error("--timeout must be positive (seconds)");
  c.reps = o.reps;
  c.warmup = o.warmup;
  c.timeout_s = o.timeout_s;
  c.check_payload = !o.no_check;
  c.host_stream = !o.no_host_stream;
  return c;
}

// The load GPUs, once the node's device count is known (after placement).
void resolve_load_gpus(const Options& o, InterferenceConfig& c, const Device& device) {
  const int available = std::max(1, device_count(device.info().backend));
  c.gpu_counts = parse_load_gpu_counts(o.load_gpus.empty() ? "1" : o.load_gpus, available);
  c.load_devices = load_device_order(o.load_devices, device.info().ordinal, available);
  if (!o.load_devices.empty() && c.load_devices.front() != device.info().ordinal)
    throw usage_error("--load-devices " + o.load_devices + ": the list starts with the sending rank's own GPU (" +
                      std::to_string(device.info().ordinal) + ")");
  if (c.max_gpus() > static_cast<int>(c.load_devices.size()))
    throw usage_error("--load-gpus asks for " + std::to_string(c.max_gpus()) + " GPUs; --load-devices lists " +
                      std::to_string(c.load_devices.size()));
  if (c.max_gpus() > 1 && c.writer != WriterSide::sender)
    throw usage_error("--load-gpus above 1 loads the GPUs of the sender's node: it needs --writer sender");
  if (sweep_points(c).empty())
    throw usage_error("nothing to measure: the layouts and loads given leave no point (SSB is the baseline; "
                      "--load none measures only SSB)");
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
    for (const char* key : {"send_mode", "writer_side", "paper", "load_bytes", "reps", "warmup", "check_payload"})
      if ((*header)["config"].value(key, Json()) != config[key])
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
  for (const auto& k : done)
    j.push_back({k.size, static_cast<int>(k.layout), static_cast<int>(k.access), static_cast<int>(k.load), k.gpus, k.rate});
  return j.dump();
}

std::set<PointKey> done_from_string(const std::string& s) {
  std::set<PointKey> done;
  for (const auto& k : Json::parse(s))
    done.insert({k[0].get<std::uint64_t>(), static_cast<Layout>(k[1].get<int>()), static_cast<Access>(k[2].get<int>()),
                 static_cast<LoadKind>(k[3].get<int>()), k[4].get<int>(), k[5].get<std::string>()});
  return done;
}

// A barrier that sleeps instead of spinning: the other rank's STREAM must not
// lose a core to it.
void quiet_barrier(const MpiContext& mpi) {
  MPI_Request r;
  mpi_check(MPI_Ibarrier(mpi.comm, &r), "MPI_Ibarrier");
  for (int done = 0; !done;) {
    mpi_check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
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
  std::unique_ptr<LoadSet> loads;
  Output out;
  std::optional<HostClock> clock;
  std::string error;
  try {
    cfg = build_config(o);
    clock = HostClock::create(o.clock);
    topo.emplace(Topology::discover());
    placement = place_rank(mpi, {o.device, o.gpu, o.bind}, *topo);
    device = placement.device.get();
    resolve_load_gpus(o, cfg, *device);
    // After binding, so the pages land on the bound NUMA node.
    memory = device->alloc_pinned(interference_allocation_bytes(cfg));
    if (mpi.size != 2)
      throw usage_error("the interference probe uses exactly 2 MPI ranks (rank 0 sends, rank 1 receives); got " +
                        std::to_string(mpi.size) + ". Run it as: mpirun -np 2 hetprobe interference ...");
    const bool loads_here = gpu_on_rank(cfg.writer, mpi.rank);
    const bool any_load = std::any_of(cfg.loads.begin(), cfg.loads.end(), [](LoadKind k) { return k != LoadKind::none; });
    if (loads_here && !cfg.paper && any_load && cfg.max_gpus() > 0) {
      std::uint64_t buffer = 0;
      for (std::uint64_t n : cfg.sizes) buffer = std::max(buffer, cfg.load_bytes_for(n));
      loads = std::make_unique<LoadSet>(*device, cfg.load_devices, cfg.max_gpus(), buffer, *topo, topo->bound_cpuset());
    }
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
  std::size_t finished = done.size(), measured = 0;
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
  if (cfg.host_stream) {
    if (mpi.rank == 0) {
      const std::string cpus = topo->bound_cpuset();
      const std::vector<int> numa = cpus.empty() ? std::vector<int>{0} : topo->numa_nodes_of(cpus);
      const HostStreamResult r = measure_host_stream(*topo, numa, auto_stream_array_bytes(topo->describe()), 5);
      out.writer->write(host_stream_record("interference", r));
      if (!o.quiet)
        std::fprintf(stderr, "host memory (STREAM, %d threads on NUMA node(s) of the sender): copy %.1f GB/s, "
                             "triad %.1f GB/s (best of 5)\n", r.threads,
                     *std::max_element(r.copy_gbs.begin(), r.copy_gbs.end()),
                     *std::max_element(r.triad_gbs.begin(), r.triad_gbs.end()));
    }
    quiet_barrier(mpi);
  }
  run_interference(cfg, *device, memory, loads.get(), mpi, *clock, done, [&](const PointData& p) {
    std::optional<double> ssb;
    if (auto it = out.ssb_medians.find({p.key.size, p.key.access}); it != out.ssb_medians.end()) ssb = it->second;
    const Json record = point_record(cfg, p, *device, ssb);
    if (p.key.layout == Layout::SSB) out.ssb_medians[{p.key.size, p.key.access}] = record["send_time_ns"]["median"].get<double>();
    out.writer->write(record);
    table.print_row(record);
    ++finished;
    ++measured;
    if (!o.quiet) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
      std::fprintf(stderr, "[%zu/%zu] %s: median %.3f us, %.0f s elapsed, about %.0f s left\n", finished, total,
                   describe(p.key).c_str(), record["send_time_ns"]["median"].get<double>() / 1e3, elapsed,
                   elapsed / static_cast<double>(measured) * static_cast<double>(total - finished));
    }
  });
  } catch (const Error& e) {
    // The other rank may be waiting inside MPI: end the whole job, once.
    std::fprintf(stderr, "[%s rank %d] %s error: %s [%s]\n", mpi.host.c_str(), mpi.rank, to_string(e.kind()),
                 e.what(), e.where().c_str());
    loads.reset();  // stops any load still running
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
  loads.reset();
  MPI_Finalize();
  return 0;
}

}  // namespace

CommandFn add_interference_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("interference",
      "Time MPI_Send on rank 0 while GPU traffic runs in pinned host memory: the GPU writes the send buffer, "
      "then a load (--load) runs during the send, landing in the send buffer (PSB), right after it (PCB) or "
      "2 MiB away (P2AB); SSB is the baseline with no load. Every point records the traffic the load moved "
      "inside the timed send. --paper runs the paper's writer instead. Needs exactly 2 MPI ranks: "
      "mpirun -np 2 hetprobe interference ...");
  c->add_option("--sizes", o->sizes,
                "Message sizes in bytes: a list (8,1KiB,4MiB), a geometric range (1KiB:64MiB:x2) or an "
                "arithmetic one (1KiB:1MiB:+64KiB). KiB/MiB/GiB and bare K/M/G are powers of 2, KB/MB/GB "
                "powers of 10")->capture_default_str();
  c->add_option("-m", o->osu_range, "OSU-style range [MIN:]MAX, doubling (alias of --sizes MIN:MAX:x2)");
  c->add_option("-b", o->begin, "nccl-tests-style first size (with -e, -f)");
  c->add_option("-e", o->end, "nccl-tests-style last size");
  c->add_option("-f", o->factor, "nccl-tests-style size factor")->capture_default_str();
  c->add_option("--layouts", o->layouts, "Where the load lands: all, or a list of SSB (no load: the baseline, "
                "measured first), PSB (the send buffer), PCB (right after it), P2AB (2 MiB after it)")
      ->capture_default_str();
  c->add_option("--access", o->access, "GPU threads of write/read/poll loads and of the payload write: stream "
                "(1 block x max threads), stacked (every co-resident block)")->capture_default_str();
  c->add_option("--load", o->load, "Load kinds, a list or all: write (GPU stores, as a kernel streaming results "
                "does), read (GPU loads, a zero-copy unpack), poll (every thread polls one flag, a kernel waiting "
                "on the CPU), copy-d2h, copy-h2d (the copy engine, async copies in a loop), none (SSB only) "
                "[default: write]");
  c->add_option("--load-bytes", o->load_bytes, "Bytes of the load's buffer (PCB, P2AB, and each other GPU's own): "
                "auto (8 x the largest message, at least 256 MiB: a pass outlasts the longest send), message "
                "(the message size, the paper's), or a size [default: auto; --paper: message]");
  c->add_option("--secondary-size", o->load_bytes, "Alias of --load-bytes");
  c->add_option("--load-rate", o->load_rate, "Load rates, a list: fractions of the load's full rate on each GPU "
                "(0.25, 50%; measured first, 50 ms alone) or GB/s per GPU (12GB/s); one point each [default: 1]");
  c->add_option("--load-gpus", o->load_gpus, "How many GPUs load at once, a list: counts (0 = none, the "
                "baseline), all, or ranges like 0:all; the sender's GPU first, each other GPU into a buffer of its "
                "own near it [default: 1]");
  c->add_option("--load-devices", o->load_devices, "The order GPUs join a load, ordinals starting with the "
                "sender's own [default: the sender's GPU, then the others by ordinal]");
  c->add_flag("--paper", o->paper, "The paper's configuration (Elis et al. Sec. 4.3): one kernel writes the send "
              "buffer, sets its flag and goes on writing (PSB: the send buffer; PCB/P2AB: a buffer the size of "
              "the message), grid-synchronised between passes");
  c->add_option("--send", o->send, "send: time MPI_Send call to return; isend: time MPI_Isend + MPI_Wait")
      ->capture_default_str();
  c->add_option("--writer", o->writer, "Whose GPU writes the payload and runs the loads: sender, receiver or both "
                "(the receiver's load traffic is measured during its MPI_Wait)")->capture_default_str();
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
  c->add_flag("--no-host-stream", o->no_host_stream, "Skip the host memory bandwidth reference (STREAM copy and "
              "triad on the sender's NUMA node, measured first)");
  c->add_flag("--quiet", o->quiet, "No progress lines on stderr");
  return [o](const std::vector<std::string>& argv) { return run(*o, argv); };
}

}  // namespace hetprobe::cli
