// `hetprobe interference`: options -> config, and the run
// (interference_run.hpp) wired into the common session frame
// (probe_session.hpp).
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>

#include "base/echo_text.hpp"
#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/text_list.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/cli/probe.hpp"
#include "bench/core/results_report.hpp"
#include "bench/core/rounds.hpp"
#include "bench/core/sizes.hpp"
#include "bench/interference/interference.hpp"
#include "bench/interference/interference_resume.hpp"
#include "bench/interference/interference_run.hpp"
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
  // Not given: the default (or --paper's). Given empty: refused, as every list's empty item is.
  std::optional<std::string> load, load_bytes, secondary_size, load_rate, load_gpus, load_devices;
  bool paper = false, no_host_stream = false;
  int rounds = 10, reps = 5, warmup = 1;
  std::optional<std::string> seed;  // not given: drawn by rank 0 and shared ("" is refused)
  std::string gap = "0";
  double timeout_s = 30;
  bool no_check = false, check_every = false;
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
  c.layouts = parse_option("--layouts", o.layouts, [&](const std::string& t) { return parse_layout_list(t, o.paper); });
  c.access = parse_enum_list("--access", o.access, kAccessNames);
  c.send_mode = parse_enum("--send", o.send, kSendModeNames);
  c.writer = parse_enum("--writer", o.writer, kWriterSideNames);
  c.paper = o.paper;
  if (c.paper && (o.load || o.load_rate || o.load_gpus || o.load_devices))
    throw usage_error(
        "--paper is the paper's writer on the sender's GPU at full rate: it takes no --load, "
        "--load-rate, --load-gpus or --load-devices");
  c.loads = o.load ? parse_option("--load", *o.load, parse_load_kinds) : std::vector<LoadKind>{LoadKind::write};
  if (o.load_bytes && o.secondary_size)
    throw usage_error("--load-bytes " + echo_text(*o.load_bytes) + " and --secondary-size " +
                      echo_text(*o.secondary_size) + ": --secondary-size is another name of --load-bytes; give one");
  const std::optional<std::string>& load_bytes = o.load_bytes ? o.load_bytes : o.secondary_size;
  const char* load_bytes_option = o.load_bytes ? "--load-bytes" : "--secondary-size";
  c.load_bytes = load_bytes ? parse_option(load_bytes_option, *load_bytes, parse_load_bytes)
                            : parse_load_bytes(c.paper ? "message" : "auto");
  c.rates = parse_load_rates(o.load_rate.value_or("1"));
  c.rounds = o.rounds;  // range-checked by the parser, as --reps, --warmup and --timeout are
  c.reps = o.reps;
  c.warmup = o.warmup;
  c.timeout_s = o.timeout_s;
  if (o.no_check && o.check_every) throw usage_error("--no-check and --check-every: give one");
  c.payload_check = o.no_check      ? PayloadCheck::none
                    : o.check_every ? PayloadCheck::every_send
                                    : PayloadCheck::last_of_visit;
  c.host_stream = !o.no_host_stream;
  check_sampling(c);
  c.gap = parse_option("--gap", o.gap, parse_send_gap);
  if (o.seed) c.seed = parse_seed(*o.seed);
  return c;
}

// Rank 0's seed for every rank, drawn where --seed gives none (collective).
void share_seed(const Options& o, InterferenceConfig& c, const MpiContext& mpi) {
  if (o.seed) return;
  c.seed = shared_random_seed(mpi);
}

// The load GPUs, once the node's device count is known (after placement).
void resolve_load_gpus(const Options& o, InterferenceConfig& c, const Device& device) {
  const int available = std::max(1, device_count(device.info().backend));
  c.gpu_counts = parse_load_gpu_counts(o.load_gpus.value_or("1"), available);
  if (o.load_devices && o.load_devices->empty()) split_list(*o.load_devices, "--load-devices");  // refuses ""
  c.load_devices = load_device_order(o.load_devices.value_or(""), device.info().ordinal, available);
  if (o.load_devices && c.load_devices.front() != device.info().ordinal)
    throw usage_error("--load-devices " + *o.load_devices + ": the list starts with the sending rank's own GPU (" +
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

// The subcommand's help line.
constexpr const char* kDescription =
    "Time MPI_Send on rank 0 while GPU traffic runs in pinned host memory: the GPU writes the send buffer, "
    "then a load (--load) runs during the send, landing in the send buffer (PSB), right after it (PCB), "
    "2 MiB away (P2AB) or in an allocation of its own (OWN); SSB is the baseline with no load. Every point records the "
    "traffic the load moved "
    "inside the timed send. --paper runs the paper's writer instead. Needs exactly 2 MPI ranks: "
    "mpirun -np 2 hetprobe interference ...";

void add_probe_options(CLI::App* c, Options* o) {
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
                "measured first), PSB (the send buffer), PCB (right after it), P2AB (2 MiB after it), OWN (a "
                "pinned allocation of its own, as an application's buffers are; not with --paper, whose all is "
                "the other four)")
      ->capture_default_str();
  c->add_option("--access", o->access,
                "GPU threads of write/read/poll loads and of the payload write: stream "
                "(1 block x max threads), stacked (every co-resident block), a list or all")
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
  c->add_option("--secondary-size", o->secondary_size, "Alias of --load-bytes (give one of the two)");
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
  add_count_option(c, "--rounds", o->rounds,
                   "Rounds per size: each visits every point of the size once, in a shuffled order, and a point's "
                   "ratio to SSB is paired within its round (its 95% CI needs 6 rounds or more)");
  add_reps_option(c, o->reps, "Timed sends per visit (a point gets rounds x reps)");
  add_warmup_option(c, o->warmup, "Untimed sends per visit, before the timed ones");
  add_seed_option(c, o->seed);
  c->add_option("--gap", o->gap,
                "What the sender does before each timed send, baseline and loads alike: 0 (back to back, "
                "warm), a time it spins for (2ms, 500us: a cold send after computing), or sweep:SIZE (it reads "
                "and writes a buffer of SIZE, as computing between sends would)")
      ->capture_default_str();
  add_timeout_option(c, o->timeout_s);
  add_session_options(c, o->session, "interference");
  add_single_copy_option(c, o->session);
  c->add_flag("--resume", o->session.resume, "Continue --out: skip the points it already holds");
  c->add_flag("--no-check", o->no_check,
              "Skip the receiver's payload check (by default it checks each visit's last send)");
  c->add_flag("--check-every", o->check_every,
              "Check the payload of every timed send: the receiver then reads each message between sends, which "
              "raises the slowdown a loaded node shows (docs/metrics.md)");
  c->add_flag("--no-host-stream", o->no_host_stream,
              "Skip the host memory bandwidth reference (STREAM copy and "
              "triad on the sender's NUMA node, measured first)");
}

// The probe, and its own optional parts of a run (resume, the loads it
// holds, its live table).
class InterferenceProbe final : public ConfiguredProbe<Options, InterferenceConfig>, public RunHooks {
 public:
  ProbeTraits traits() const override {
    return {kDescription, /*ranks_take_turns=*/false, /*rank_field=*/false};  // rank 0 makes every record
  }

  void check(const Device& device, const MpiContext& mpi) override {
    resolve_load_gpus(options_, config_, device);
    if (mpi.size != 2)
      throw usage_error("the interference probe uses exactly 2 MPI ranks (rank 0 sends, rank 1 receives); got " +
                        std::to_string(mpi.size) + ". Run it as: mpirun -np 2 hetprobe interference ...");
  }
  void share(const MpiContext& mpi) override { share_seed(options_, config_, mpi); }
  // The header's planned records: the points still to measure and the host memory record. The
  // progress counts every point, those already in a resumed file among them.
  RunPlan plan(const MpiContext& mpi, const Topology& topo) const override {
    const std::size_t host_record = config_.host_stream ? 1 : 0;
    const SendGap& gap = config_.gap;
    return {.expected_records = sweep_points(config_).size() - run_.done.size() + host_record,
            .progress_total = sweep_points(config_).size() + host_record,
            .host_bytes = rank_host_bytes(config_, mpi.rank, topo),
            .memory_what = "this run (--sizes up to " + format_size(config_.sizes.back()) + ", load buffers of " +
                           format_size(max_load_bytes(config_)) +
                           (gap.kind == GapKind::sweep ? ", a --gap sweep buffer of " + format_size(gap.bytes) : "") +
                           ", " + std::to_string(mpi.node_size) + " rank(s) on this node)"};
  }
  RunHooks* hooks() override { return this; }
  const PinnedBuffer* allocate(Device& device, const Topology& topo, const MpiContext& mpi) override {
    return hetprobe::allocate(run_, config_, device, topo, mpi);
  }
  void release() override { run_.loads.reset(); }  // stops any load still running
  void measure(Device& device, const HostClock& clock, const MpiContext& mpi, const RecordSink& sink) override {
    hetprobe::measure(run_, config_, device, clock, mpi, sink);
  }
  bool print(const Json& header, const std::vector<Json>&) override {
    run_.table.print_footer(header);
    return true;
  }

  bool resumable() const override { return true; }
  std::string read_done(const ResultsFile& existing, const Device& device) override {
    return done_to_string(resumed_points(existing, config_.to_json(), device.info().backend).done);
  }
  std::size_t take_done(const std::string& done) override {
    run_.done = done_from_string(done);
    return run_.done.size();
  }
  bool begin(const Json& header, const std::filesystem::path& path, std::size_t done) override {
    const Json& device = header["device"];
    std::fprintf(stderr, "hetprobe interference: %s; device %s (%s); %zu points (%zu already in %s)\n",
                 header["device_choice"].get<std::string>().c_str(), device["name"].get<std::string>().c_str(),
                 header["backend"].get<std::string>().c_str(), sweep_points(config_).size(), done, path.c_str());
    run_.path = message_path({header, "interference header"});
    run_.table.print_heading(header);
    return true;
  }
  void on_record(const Json& record) override {
    if (record_kind({record, "record"}) == "point") run_.table.print_row(record);
  }

 private:
  InterferenceRun run_;
};

}  // namespace

std::unique_ptr<Probe> make_interference_probe() { return std::make_unique<InterferenceProbe>(); }

}  // namespace hetprobe::cli
