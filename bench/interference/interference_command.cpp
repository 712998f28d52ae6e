// `hetprobe interference`: options, validation agreed by both ranks, the
// results file (new or resumed), the table and progress.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/core/errors.hpp"
#include "bench/core/interrupt.hpp"
#include "bench/core/placement.hpp"
#include "bench/core/probe_session.hpp"
#include "bench/core/progress.hpp"
#include "bench/core/run_header.hpp"
#include "bench/core/sizes.hpp"
#include "bench/interference/interference.hpp"
#include "bench/interference/interference_resume.hpp"
#include "bench/interference/interference_table.hpp"
#include "bench/load/host_stream.hpp"
#include "probes/device/device_names.hpp"

namespace hetprobe::cli {

namespace {

struct Options {
  SessionOptions session;
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
  bool resume = false, no_check = false;
};

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
  c.layouts = parse_option("--layouts", o.layouts, [](const std::string& t) { return parse_layout_list(t); });
  c.access = parse_enum_list("--access", o.access, kAccessNames);
  c.send_mode = parse_enum("--send", o.send, kSendModeNames);
  c.writer = parse_enum("--writer", o.writer, kWriterSideNames);
  c.paper = o.paper;
  if (c.paper && (!o.load.empty() || !o.load_rate.empty() || !o.load_gpus.empty() || !o.load_devices.empty()))
    throw usage_error(
        "--paper is the paper's writer on the sender's GPU at full rate: it takes no --load, "
        "--load-rate, --load-gpus or --load-devices");
  c.loads = o.load.empty() ? std::vector<LoadKind>{LoadKind::write} : parse_option("--load", o.load, parse_load_kinds);
  c.load_bytes = parse_load_bytes(o.load_bytes.empty() ? (c.paper ? "message" : "auto") : o.load_bytes);
  c.rates = parse_load_rates(o.load_rate.empty() ? "1" : o.load_rate);
  c.reps = o.reps;  // range-checked by the parser, as --warmup and --timeout are
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
    throw usage_error(
        "nothing to measure: the layouts and loads given leave no point (SSB is the baseline; "
        "--load none measures only SSB)");
}

// The largest load buffer any point uses.
std::uint64_t max_load_bytes(const InterferenceConfig& c) {
  std::uint64_t buffer = 0;
  for (std::uint64_t n : c.sizes) buffer = std::max(buffer, c.load_bytes_for(n));
  return buffer;
}

// Whether this rank runs loads (and so holds a LoadSet).
bool loads_on_rank(const InterferenceConfig& c, int rank) {
  const bool any_load = std::any_of(c.loads.begin(), c.loads.end(), [](LoadKind k) { return k != LoadKind::none; });
  return gpu_on_rank(c.writer, rank) && !c.paper && any_load && c.max_gpus() > 0;
}

// Host memory this rank will take: the pinned buffer, the other load GPUs'
// buffers, the two payloads (device memory; on the host backend host memory),
// and rank 0's STREAM arrays.
std::uint64_t rank_host_bytes(const InterferenceConfig& c, int rank, const Topology& topo) {
  std::uint64_t bytes = interference_allocation_bytes(c) + 2 * c.sizes.back();  // sizes are sorted
  if (loads_on_rank(c, rank)) bytes += static_cast<std::uint64_t>(c.max_gpus() - 1) * max_load_bytes(c);
  if (rank == 0 && c.host_stream) bytes += 3 * auto_stream_array_bytes(topo.describe());
  return bytes;
}

// Rank 0's view of the results file: where it goes and what is already done.
struct Output {
  std::filesystem::path path;
  std::optional<ResultsWriter> writer;
  std::set<PointKey> done;
  std::map<std::pair<std::uint64_t, Access>, double> ssb_medians;
};

// Where the results go, checked without creating anything. Only on rank 0.
void check_output(const Options& o, Output& out) {
  out.path = o.session.out.empty() ? "hetprobe-interference-" + utc_now_iso8601() + ".jsonl" : o.session.out;
  check_results_target("interference", out.path, o.resume ? Resume::on : Resume::off);
}

// Opens the results file, reading back a resumed one. Only on rank 0, after check_output.
void open_output(const Options& o, const Json& config, const Device& device, Output& out) {
  OpenedResults opened = open_results_for("interference", out.path, o.resume ? Resume::on : Resume::off);
  out.writer.emplace(std::move(opened.writer));
  if (opened.existing.records.empty()) return;
  ResumedPoints resumed = resumed_points(opened.existing, config, device.info().backend);
  out.done = std::move(resumed.done);
  out.ssb_medians = std::move(resumed.ssb_medians);
  if (opened.existing.truncated_tail) {
    std::fprintf(stderr, "hetprobe: dropping an incomplete last line of %s (a killed run)\n", out.path.c_str());
    drop_truncated_tail(out.path, opened.existing);
  }
}

std::string done_to_string(const std::set<PointKey>& done) {
  Json j = Json::array();
  for (const auto& k : done)
    j.push_back({k.size, static_cast<int>(k.layout), static_cast<int>(k.access), static_cast<int>(k.load), k.gpus,
                 k.rate});
  return j.dump();
}

std::set<PointKey> done_from_string(const std::string& s) {
  std::set<PointKey> done;
  for (const auto& k : Json::parse(s))
    done.insert({k[0].get<std::uint64_t>(), static_cast<Layout>(k[1].get<int>()), static_cast<Access>(k[2].get<int>()),
                 static_cast<LoadKind>(k[3].get<int>()), k[4].get<int>(), k[5].get<std::string>()});
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
  std::unique_ptr<LoadSet> loads;
  Output out;
  std::optional<HostClock> clock;
  std::uint64_t bytes = 0;  // host memory this rank will take
  const bool ok = agreed_steps(
      mpi, "interference",
      {[&] {
         cfg = build_config(o);
         clock = HostClock::create(o.session.clock);
         topo.emplace(Topology::discover());
         placement = place_rank(mpi, {o.session.device, o.session.gpu, o.session.bind}, *topo);
         device = placement.device.get();
         resolve_load_gpus(o, cfg, *device);
         if (mpi.size != 2)
           throw usage_error("the interference probe uses exactly 2 MPI ranks (rank 0 sends, rank 1 receives); got " +
                             std::to_string(mpi.size) + ". Run it as: mpirun -np 2 hetprobe interference ...");
         if (mpi.rank == 0) check_output(o, out);
         bytes = rank_host_bytes(cfg, mpi.rank, *topo);
       },
       [&] {
         const std::uint64_t on_node = node_sum(mpi, bytes);
         check_memory_available(on_node, "this run (--sizes up to " + format_size(cfg.sizes.back()) +
                                             ", load buffers of " + format_size(max_load_bytes(cfg)) + ", " +
                                             std::to_string(mpi.node_size) + " rank(s) on this node)");
         // After binding, so the pages land on the bound NUMA node.
         memory = device->alloc_pinned(interference_allocation_bytes(cfg));
         if (loads_on_rank(cfg, mpi.rank))
           loads = std::make_unique<LoadSet>(*device, cfg.load_devices, cfg.max_gpus(), max_load_bytes(cfg), *topo,
                                             topo->bound_cpuset());
       },
       [&] {
         if (mpi.rank == 0) open_output(o, cfg.to_json(), *device, out);
       }});
  if (!ok) {
    MPI_Finalize();
    return 2;
  }
  const std::set<PointKey> done = done_from_string(broadcast_string(mpi, done_to_string(out.done)));
  const std::string& device_choice = placement.device_choice;
  Json header = run_header({"interference", argv, device_choice, cfg.to_json(), !done.empty(),
                            placement_json(placement, *topo, memory.host(), memory.size()), topo->describe().to_json()},
                           *device, mpi, *clock);
  InterferenceTable table(stdout);
  const std::size_t total = sweep_points(cfg).size();
  header["planned_records"] = total - done.size() + (cfg.host_stream ? 1 : 0);
  Progress progress(total, done.size());
  if (mpi.rank == 0) {
    out.writer->write(header);
    std::fprintf(stderr, "hetprobe interference: %s; device %s (%s); %zu points (%zu already in %s)\n",
                 device_choice.c_str(), device->info().name.c_str(), device->info().backend.c_str(), total, done.size(),
                 out.path.c_str());
    table.print_heading(header);
  }
  install_interrupt_handlers();
  try {
    if (cfg.host_stream) {
      if (mpi.rank == 0) {
        const std::string cpus = topo->bound_cpuset();
        const std::vector<int> numa = cpus.empty() ? std::vector<int>{0} : topo->numa_nodes_of(cpus);
        const HostStreamResult r = measure_host_stream(*topo, numa, auto_stream_array_bytes(topo->describe()), 5);
        out.writer->write(host_stream_record("interference", r));
        if (!o.session.quiet)
          std::fprintf(stderr,
                       "host memory (STREAM, %d threads on NUMA node(s) of the sender): copy %.1f GB/s, "
                       "triad %.1f GB/s (best of 5)\n",
                       r.threads, *std::max_element(r.copy_gbs.begin(), r.copy_gbs.end()),
                       *std::max_element(r.triad_gbs.begin(), r.triad_gbs.end()));
      }
      interruptible_barrier(mpi);  // sleeping: the other rank's STREAM must not lose a core to it
    }
    run_interference(cfg, *device, memory, loads.get(), mpi, *clock, done, [&](const PointData& p) {
      std::optional<double> ssb;
      if (auto it = out.ssb_medians.find({p.key.size, p.key.access}); it != out.ssb_medians.end()) ssb = it->second;
      const Json record = point_record(cfg, p, *device, ssb);
      if (p.key.layout == Layout::SSB)
        out.ssb_medians[{p.key.size, p.key.access}] = record["send_time_ns"]["median"].get<double>();
      out.writer->write(record);
      table.print_row(record);
      char median[64];
      std::snprintf(median, sizeof median, ": median %.3f us", record["send_time_ns"]["median"].get<double>() / 1e3);
      const std::string line = progress.finished(describe(p.key) + median);
      if (!o.session.quiet) std::fprintf(stderr, "%s\n", line.c_str());
    });
  } catch (const Error& e) {
    // The other rank may be waiting inside MPI: end the whole job, once.
    std::fprintf(stderr, "[%s rank %d] %s error: %s\n", mpi.host.c_str(), mpi.rank, to_string(e.kind()),
                 user_message(e).c_str());
    loads.reset();  // stops any load still running
    if (mpi.rank == 0)
      std::fprintf(stderr, "hetprobe interference: %zu of %zu points are in %s; --resume continues it\n",
                   progress.done(), total, out.path.c_str());
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
  CLI::App* c = app.add_subcommand(
      "interference",
      "Time MPI_Send on rank 0 while GPU traffic runs in pinned host memory: the GPU writes the send buffer, "
      "then a load (--load) runs during the send, landing in the send buffer (PSB), right after it (PCB) or "
      "2 MiB away (P2AB); SSB is the baseline with no load. Every point records the traffic the load moved "
      "inside the timed send. --paper runs the paper's writer instead. Needs exactly 2 MPI ranks: "
      "mpirun -np 2 hetprobe interference ...");
  c->add_option("--sizes", o->sizes,
                "Message sizes in bytes: a list (8,1KiB,4MiB), a geometric range (1KiB:64MiB:x2) or an "
                "arithmetic one (1KiB:1MiB:+64KiB). KiB/MiB/GiB and bare K/M/G are powers of 2, KB/MB/GB "
                "powers of 10")
      ->capture_default_str();
  c->add_option("-m", o->osu_range, "OSU-style range [MIN:]MAX, doubling (alias of --sizes MIN:MAX:x2)");
  c->add_option("-b", o->begin, "nccl-tests-style first size (with -e, -f)");
  c->add_option("-e", o->end, "nccl-tests-style last size");
  c->add_option("-f", o->factor, "nccl-tests-style size factor")->capture_default_str();
  c->add_option("--layouts", o->layouts,
                "Where the load lands: all, or a list of SSB (no load: the baseline, "
                "measured first), PSB (the send buffer), PCB (right after it), P2AB (2 MiB after it)")
      ->capture_default_str();
  c->add_option("--access", o->access,
                "GPU threads of write/read/poll loads and of the payload write: stream "
                "(1 block x max threads), stacked (every co-resident block)")
      ->capture_default_str();
  c->add_option("--load", o->load,
                "Load kinds, a list or all: write (GPU stores, as a kernel streaming results "
                "does), read (GPU loads, a zero-copy unpack), poll (every thread polls one flag, a kernel waiting "
                "on the CPU), copy-d2h, copy-h2d (the copy engine, async copies in a loop), none (SSB only) "
                "[default: write]");
  c->add_option("--load-bytes", o->load_bytes,
                "Bytes of the load's buffer (PCB, P2AB, and each other GPU's own): "
                "auto (8 x the largest message, at least 256 MiB: a pass outlasts the longest send), message "
                "(the message size, the paper's), or a size [default: auto; --paper: message]");
  c->add_option("--secondary-size", o->load_bytes, "Alias of --load-bytes");
  c->add_option("--load-rate", o->load_rate,
                "Load rates, a list: fractions of the load's full rate on each GPU "
                "(0.25, 50%; measured first, 50 ms alone) or GB/s per GPU (12GB/s); one point each [default: 1]");
  c->add_option("--load-gpus", o->load_gpus,
                "How many GPUs load at once, a list: counts (0 = none, the "
                "baseline), all, or ranges like 0:all; the sender's GPU first, each other GPU into a buffer of its "
                "own near it [default: 1]");
  c->add_option("--load-devices", o->load_devices,
                "The order GPUs join a load, ordinals starting with the "
                "sender's own [default: the sender's GPU, then the others by ordinal]");
  c->add_flag("--paper", o->paper,
              "The paper's configuration (Elis et al. Sec. 4.3): one kernel writes the send "
              "buffer, sets its flag and goes on writing (PSB: the send buffer; PCB/P2AB: a buffer the size of "
              "the message), grid-synchronised between passes");
  c->add_option("--send", o->send, "send: time MPI_Send call to return; isend: time MPI_Isend + MPI_Wait")
      ->capture_default_str();
  c->add_option("--writer", o->writer,
                "Whose GPU writes the payload and runs the loads: sender, receiver or both "
                "(the receiver's load traffic is measured during its MPI_Wait)")
      ->capture_default_str();
  add_reps_option(c, o->reps, "Timed samples per point");
  add_warmup_option(c, o->warmup, "Untimed full samples per point before the timed ones");
  add_timeout_option(c, o->timeout_s);
  add_session_options(c, o->session, "interference");
  c->add_flag("--resume", o->resume, "Continue --out: skip the points it already holds");
  c->add_flag("--no-check", o->no_check, "Skip the receiver's payload check");
  c->add_flag("--no-host-stream", o->no_host_stream,
              "Skip the host memory bandwidth reference (STREAM copy and "
              "triad on the sender's NUMA node, measured first)");
  return [o](const std::vector<std::string>& argv) { return run(*o, argv); };
}

}  // namespace hetprobe::cli
