// `hetprobe halo`: the halo-exchange proxy (paper 002 Sec. 3-6; thesis 003
// Sec. 3-4): baseline against notification-driven persistent kernels on any
// number of ranks, payload verified, with the paper's lower-bound model.
#include <algorithm>
#include <charconv>
#include <limits>
#include <memory>

#include "base/echo_text.hpp"
#include "base/errors.hpp"
#include "base/text_list.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/cli/probe.hpp"
#include "bench/core/rounds.hpp"
#include "bench/core/sizes.hpp"
#include "bench/halo/halo.hpp"
#include "bench/halo/halo_measure.hpp"
#include "bench/halo/halo_record.hpp"

namespace hetprobe::cli {

namespace {

struct Options {
  SessionOptions session;
  std::string cubes = "200,400,800";
  std::string grid = "4x4x4";
  int cell_bytes = 24, halo_width = 1;
  std::string peers = "auto";
  std::string layout_file;
  std::string variants = "all";
  std::string send = "isend", recv_wait = "waitall", signal = "channel", staging = "pinned", timeline = "all";
  std::string threads = "128", long_bytes = "auto", parts = "auto";
  std::optional<std::string> seed;  // not given: drawn by rank 0 and shared
  HaloConfig config;
  HaloModelOptions model;
};

// Cells per side of a cube, and sub-cubes per axis: far past any run, and
// small enough that every product of them in the layout stays exact.
constexpr int kMaxCube = 1 << 20;
constexpr int kMaxGridSide = 1 << 10;
constexpr int kMaxCellBytes = 1 << 20;
constexpr long long kMaxPollPauseNs = 1'000'000'000;  // a second between two flag reads
constexpr double kMaxBytesPerSecond = 1e15;           // 1 PB/s

std::array<int, 3> parse_grid(const std::string& text) {
  const std::string expected = "--grid " + text + ": expected three counts in [1, " + std::to_string(kMaxGridSide) +
                               "] like 4x4x4";
  std::array<int, 3> g{};
  const auto sides = split_list(text, "--grid", 'x');
  if (sides.size() != 3) throw usage_error(expected);
  for (int a = 0; a < 3; ++a) {
    const std::string& t = sides[static_cast<std::size_t>(a)];
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), g[a]);
    if (ec != std::errc() || end != t.data() + t.size() || g[a] < 1 || g[a] > kMaxGridSide) throw usage_error(expected);
  }
  return g;
}

// A list of counts or sizes (ranges too: 200:800:x2), ascending; a value listed
// twice is refused, as every list option refuses it, not quietly run once.
std::vector<std::uint64_t> parse_distinct(const std::string& option, const std::string& text) {
  std::vector<std::uint64_t> out;
  for (const std::string& item : split_list(text, option))
    for (std::uint64_t v : parse_option(option, text, [&](const std::string&) { return parse_size_list(item); })) {
      if (std::find(out.begin(), out.end(), v) != out.end())
        throw usage_error(option + " " + echo_text(text) + ": " + std::to_string(v) + " is listed twice");
      out.push_back(v);
    }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> parse_cubes(const std::string& text) {
  std::vector<int> out;
  for (std::uint64_t cube : parse_distinct("--cube", text)) {
    if (cube > static_cast<std::uint64_t>(kMaxCube))
      throw usage_error("--cube " + text + ": a cube side is at most " + std::to_string(kMaxCube) + " cells, not " +
                        std::to_string(cube));
    out.push_back(static_cast<int>(cube));
  }
  return out;
}

// The layouts of this run, for `rank` of `ranks` (one per cube, or the file's).
std::vector<HaloLayout> layouts(const Options& o, int rank, int ranks) {
  if (!o.layout_file.empty()) return {file_layout(o.layout_file, rank, ranks)};
  HaloCube c;
  c.size_grid = parse_grid(o.grid);
  c.cell_bytes = o.cell_bytes;
  c.halo_width = o.halo_width;
  c.peers = o.peers == "auto" ? (ranks == 2 ? HaloPeers::pair : HaloPeers::grid) : parse_halo_peers(o.peers);
  std::vector<HaloLayout> out;
  for (int cube : parse_cubes(o.cubes)) {
    c.cube = cube;
    out.push_back(cube_layout(c, rank, ranks));
  }
  return out;
}

// Bad cubes, grids and files fail before anything is measured, on every rank
// (the rank count is checked once the ranks are known).
void validate_layouts(const Options& o) {
  constexpr int kAnyRanks = 1 << 20;
  if (!o.layout_file.empty()) {
    file_layout(o.layout_file, 0, kAnyRanks);
    return;
  }
  if (o.peers != "auto") parse_enum("--peers", o.peers, kHaloPeersNames);
  Options grid_only = o;
  grid_only.peers = "grid";
  layouts(grid_only, 0, 1);
}

// The numbers are range-checked by the parser (option_checks.hpp); lists,
// sizes and the models' consistency here.
HaloConfig build_config(const Options& o) {
  HaloConfig c = o.config;
  c.variants = parse_enum_list("--variants", o.variants, kHaloVariantNames);
  c.send_modes = parse_enum_list("--send", o.send, kSendModeNames);
  c.receive_waits = parse_enum_list("--recv-wait", o.recv_wait, kHaloReceiveWaitNames);
  c.signals = parse_enum_list("--signal", o.signal, kHaloSignalNames);
  c.stagings = parse_enum_list("--staging", o.staging, kHaloStagingNames);
  c.threads_per_block.clear();
  for (std::uint64_t t : parse_distinct("--threads", o.threads)) {
    if (t > 65536) throw usage_error("--threads " + o.threads + ": at most 65536 per block");
    c.threads_per_block.push_back(static_cast<int>(t));
  }
  c.parts = parse_option("--parts", o.parts, [](const std::string& t) { return parse_part_sizes(t); });
  for (std::size_t i = 0; i < c.poll_pause_ns.size(); ++i)
    if (std::find(c.poll_pause_ns.begin(), c.poll_pause_ns.begin() + static_cast<std::ptrdiff_t>(i),
                  c.poll_pause_ns[i]) != c.poll_pause_ns.begin() + static_cast<std::ptrdiff_t>(i))
      throw usage_error("--poll-pause: " + std::to_string(c.poll_pause_ns[i]) + " is listed twice");
  if (o.long_bytes != "auto")
    c.long_bytes = parse_option("--long-bytes", o.long_bytes, [](const std::string& t) { return parse_size(t); });
  c.timeline = parse_enum("--timeline", o.timeline, kHaloTimelineNames);
  if (o.seed) c.seed = parse_seed(*o.seed);
  if ((o.model.alpha_s < 0) != (o.model.beta_s_per_byte < 0))
    throw usage_error("--model-alpha and --model-beta go together");
  const KModel& k = o.model.kmodel;
  if (k.r_cb_bytes_per_s != 0 || k.r_ci_bytes_per_s != 0 || k.k_inter != 0 || k.k_total != 0 || k.k_prime != 1) {
    if (k.r_cb_bytes_per_s == 0) throw usage_error("the K-model options (--model-r-ci, --model-k-*) need --model-r-cb");
    KModel check = k;
    check.alpha_s = 0;  // measured (or given) later; every other term is checked now, before anything is written
    try {
      (void)kmodel_beta(check);
    } catch (const Error& e) {
      throw usage_error("--model-r-cb, --model-r-ci, --model-k-inter, --model-k-total, --model-k-prime: " +
                        std::string(e.what()));
    }
  }
  return c;
}

// Each rank's messages fit MPI's int counts; returns the bytes of its
// buffers (device buffers counted too: on the host backend they are host
// memory), for the largest cube. Before the results file is written.
std::uint64_t check_rank_layouts(const Options& o, const HaloConfig& c, const MpiContext& mpi) {
  std::uint64_t largest_need = 0;
  const bool memcpy = std::find(c.stagings.begin(), c.stagings.end(), HaloStaging::memcpy) != c.stagings.end();
  for (const HaloLayout& l : layouts(o, mpi.rank, mpi.size)) {
    std::uint64_t sends = 0, recvs = 0;
    for (const auto& m : l.sends) {
      if (m.bytes > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw usage_error("a halo message of " + format_size(m.bytes) + " is above MPI's int count (2 GiB - 1): " +
                          "a smaller --cube, a larger --grid or a smaller --cell-bytes");
      sends += m.bytes;
    }
    for (const auto& m : l.recvs) recvs += m.bytes;
    largest_need = std::max(largest_need, (memcpy ? 2 : 1) * sends + (memcpy ? 3 : 2) * recvs);
  }
  return largest_need;
}

// The subcommand's help line.
constexpr const char* kDescription =
    "Halo-exchange proxy: a 3D domain's 26 halo messages per rank (the sizes of Elis et al. 2024, Table 2, from a "
    "cube), packed, "
    "exchanged with MPI and unpacked each iteration; baseline (fused kernels, device synchronise) against "
    "notify-stream (persistent pack and unpack kernels, pinned-memory flags) and notify-stacked (one cooperative "
    "kernel); the thesis's send, receive-wait, signal and staging options; payload verified; the paper's lower "
    "bound beside";

void add_probe_options(CLI::App* c, Options* o) {
  c->add_option("--cube", o->cubes, "Cells per side of the global cube, a list (the paper's 200, 400, 800)")
      ->capture_default_str();
  c->add_option("--grid", o->grid, "Sub-cubes per axis the message sizes come from (the paper's 64 ranks: 4x4x4)")
      ->capture_default_str();
  c->add_option("--cell-bytes", o->cell_bytes, "Bytes per cell")
      ->check(integer_in(1, kMaxCellBytes))
      ->capture_default_str();
  c->add_option("--halo-width", o->halo_width, "Halo thickness, cells (less than a sub-cube's side)")
      ->check(integer_in(1, kMaxCube))
      ->capture_default_str();
  c->add_option("--peers", o->peers,
                "Who exchanges with whom: grid (periodic 3D process grid), pair (rank r with "
                "r^1: the paper's 2-GPU run), auto (pair on 2 ranks, else grid)")
      ->capture_default_str();
  c->add_option("--layout-file", o->layout_file,
                "Message sizes and peers from a file, one 'SENDER RECEIVER BYTES' "
                "per line (replaces --cube)");
  c->add_option("--variants", o->variants, "baseline, notify-stream, notify-stacked (a list), or all")
      ->capture_default_str();
  c->add_option("--send", o->send,
                "isend (MPI_Isend, waited at the end), send (blocking MPI_Send), or both: isend,send or all")
      ->capture_default_str();
  c->add_option("--recv-wait", o->recv_wait,
                "baseline's receives: waitall (MPI_Waitall), testany (MPI_Testany "
                "loop), or both: waitall,testany or all")
      ->capture_default_str();
  c->add_option("--signal", o->signal,
                "notify variants, how the device says a message is packed: channel (a flag "
                "per message; the thesis's per-block channel), queue (one task queue appended with atomics), or both: "
                "channel,queue or all")
      ->capture_default_str();
  c->add_option("--staging", o->staging,
                "where pack writes and unpack reads: pinned (host memory MPI sends from and receives into), memcpy "
                "(device memory: one device-to-host copy per message on its own stream before its send, one "
                "host-to-device copy per received message before its unpack), or both: pinned,memcpy or all")
      ->capture_default_str();
  add_count_option(c, "--rounds", o->config.rounds,
                   "Rounds: each visits every setup once, in a shuffled order, and a setup's speed-up over the "
                   "strongest baseline is paired within its round (its 95% CI needs 6 rounds or more)");
  add_count_option(c, "--iterations", o->config.iterations,
                   "Timed iterations per visit (a setup gets rounds x iterations)");
  add_warmup_option(c, o->config.warmup, "Untimed iterations per visit, before the timed ones");
  add_seed_option(c, o->seed);
  c->add_option("--threads", o->threads, "GPU threads per block, a list (each a setup); the thesis's 128")
      ->capture_default_str();
  c->add_option("--parts", o->parts,
                "Bytes of a message each block packs or unpacks, a list (each a setup): "
                "auto (64 KiB or threads x 64 B if more, doubled until pack and unpack fit on the GPU at once; "
                "the parts of a stage's messages run at once), whole (one "
                "block per message: Comb's fused kernels and the paper; notify-stacked: its long messages on the "
                "whole grid, one after the other, as the paper), or a size like 32KiB")
      ->capture_default_str();
  c->add_option("--poll-pause", o->config.poll_pause_ns,
                "notify variants: ns the GPU pauses between two reads of an "
                "unpack-ready flag (fewer reads of host memory while MPI copies), a list; 0: none")
      ->delimiter(',')
      ->check(integer_in(0, kMaxPollPauseNs))
      ->capture_default_str();
  c->add_option("--timeline", o->timeline,
                "Per-iteration timelines kept in the records: all, median (the "
                "median iteration's alone), or none")
      ->capture_default_str();
  c->add_option("--long-bytes", o->long_bytes,
                "notify-stacked with --parts whole: messages at least this big are packed and unpacked "
                "by the whole grid; auto: half the largest message")
      ->capture_default_str();
  add_timeout_option(c, o->config.timeout_s);
  add_count_option(c, "--mpi-reps", o->model.mpi_reps, "Ping-pongs per size to measure the model's alpha and beta");
  c->add_option("--model-alpha", o->model.alpha_s, "Model latency alpha, s (with --model-beta: instead of measuring)")
      ->check(number_in(0, 1, false, " s"));
  c->add_option("--model-beta", o->model.beta_s_per_byte, "Model inverse bandwidth beta, s/B")
      ->check(number_in(0, 1, false, " s/B"));
  c->add_option("--model-r-cb", o->model.kmodel.r_cb_bytes_per_s,
                "K-model R_Cb, B/s: use Eq. 3-4 (inter-node) for T_comm")
      ->check(number_in(0, kMaxBytesPerSecond, true, " B/s"));
  c->add_option("--model-r-ci", o->model.kmodel.r_ci_bytes_per_s, "K-model R_Ci, B/s")
      ->check(number_in(0, kMaxBytesPerSecond, true, " B/s"));
  c->add_option("--model-k-inter", o->model.kmodel.k_inter, "K-model K_inter: messages per rank that leave the node")
      ->check(count_from(0));
  c->add_option("--model-k-total", o->model.kmodel.k_total, "K-model K_total: messages per rank")->check(count_from(1));
  c->add_option("--model-k-prime", o->model.kmodel.k_prime, "K-model k': processes communicating per node")
      ->check(count_from(1));
  add_session_options(c, o->session, "halo");
  add_single_copy_option(c, o->session);
}

class HaloProbe final : public ConfiguredProbe<Options, HaloConfig> {
 public:
  ProbeTraits traits() const override { return {kDescription}; }
  void configured() override { validate_layouts(options_); }
  void add_to_config_json(Json& j) const override {
    j["cubes"] = options_.layout_file.empty() ? Json(parse_cubes(options_.cubes)) : Json(nullptr);
    j["grid"] = options_.grid;
    j["cell_bytes"] = options_.cell_bytes;
    j["halo_width"] = options_.halo_width;
    j["peers"] = options_.peers;
    j["layout_file"] = options_.layout_file.empty() ? Json(nullptr) : Json(options_.layout_file);
  }
  void check(const Device&, const MpiContext& mpi) override {
    host_bytes_ = check_rank_layouts(options_, config_, mpi);
  }
  // Rank 0's seed on every rank where --seed gives none (collective).
  void share(const MpiContext& mpi) override {
    if (!options_.seed) config_.seed = shared_random_seed(mpi);
  }
  // Per cube: a record per setup, then the model's.
  RunPlan plan(const MpiContext&, const Topology&) const override {
    const std::size_t cubes = options_.layout_file.empty() ? parse_cubes(options_.cubes).size() : 1;
    return {.expected_records = cubes * (config_.setups().size() + 1), .host_bytes = host_bytes_};
  }
  void measure(Device& d, const HostClock& clock, const MpiContext& mpi, const RecordSink& sink) override {
    measure_halo(config_, layouts(options_, mpi.rank, mpi.size), layouts(options_, 0, mpi.size), options_.model, d,
                 clock, mpi, sink);
  }

 private:
  std::uint64_t host_bytes_ = 0;  // this rank's, from its layouts (check)
};

}  // namespace

std::unique_ptr<Probe> make_halo_probe() { return std::make_unique<HaloProbe>(); }

}  // namespace hetprobe::cli
