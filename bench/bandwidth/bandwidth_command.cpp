// `hetprobe bandwidth`: how fast the device moves pinned host memory, each
// way, and how close the probe's own traffic comes to it. References: one
// plain pass of each kind, event-timed (a write kernel, a read kernel, one
// async copy each way). Beside them the paper's persistent writer (stream and
// stacked) and the interference loads at full rate, timed on the device over
// their stamps. The interference results are only as strong as these: a load
// should come close to its plain pass.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/core/errors.hpp"
#include "bench/core/interrupt.hpp"
#include "bench/core/noise.hpp"
#include "bench/core/progress.hpp"
#include "bench/core/run_header.hpp"
#include "bench/core/sizes.hpp"
#include "bench/core/stats.hpp"
#include "bench/load/load_options.hpp"
#include "probes/device/device.hpp"
#include "probes/load/load_engine.hpp"

namespace hetprobe::cli {

namespace {

// A sample of a persistent writer or load: long enough for any rate, short
// enough that --reps of them stay within a run.
constexpr double kMaxSampleSeconds = 60;

struct Options {
  std::string size = "256MiB";
  int reps = 5;
  double duration_s = 0.2;
  std::string load = "all";
  std::string device = "auto";
  int gpu = 0;
  std::string out;
};

// GB/s of the paper's persistent writer over `duration_s` of post-ready passes.
double writer_gbs(Device& d, Access access, const PinnedBuffer& buf, std::uint64_t bytes, double duration_s,
                  std::uint64_t epoch) {
  WriterTask t;
  t.access = access;
  t.post = buf.device();
  t.post_bytes = bytes;
  t.epoch = epoch;
  t.timeout_s = duration_s + 30;
  d.start_writer(t);
  d.wait_ready(epoch, t.timeout_s);
  try {
    sleep_unless_interrupted(duration_s);
  } catch (...) {
    d.request_stop(epoch);
    (void)d.join_writer();
    throw;
  }
  d.request_stop(epoch);
  const WriterOutcome o = d.join_writer();
  if (o.status != WriterStatus::ok) throw Error(ErrorKind::timeout, "the writer timed out");
  const double seconds = static_cast<double>(o.t_end_ticks - o.t_ready_ticks) / d.info().timer_hz;
  return static_cast<double>(bytes) * static_cast<double>(o.passes) / seconds * 1e-9;
}

// GB/s of a load at full rate over `duration_s`, from its stamps (ready to end).
double load_gbs(LoadEngine& e, LoadKind kind, Access access, const PinnedBuffer& buf, std::uint64_t bytes,
                double duration_s, std::uint64_t epoch) {
  LoadTask t;
  t.kind = kind;
  t.access = access;
  t.target = buf.device();
  t.target_bytes = bytes;
  t.epoch = epoch;
  t.timeout_s = duration_s + 30;
  return run_for_rate_gbs(e, t, duration_s);
}

struct Row {
  std::string name;       // what was measured
  std::string kind;       // the traffic's kind
  std::string reference;  // the plain row it is compared with ("" for the references themselves)
  std::vector<double> gbs;
};

// The row's record: its samples, median, and ratio to its plain reference
// (measured before it: the plain rows come first).
Json row_record(const Row& r, const std::vector<Row>& rows, std::uint64_t bytes) {
  const Summary s = summarize(r.gbs);
  double plain = 0;
  for (const Row& p : rows)
    if (!r.reference.empty() && p.name == r.reference) plain = summarize(p.gbs).median;
  return Json{{"record", "point"},
              {"probe", "bandwidth"},
              {"writer", r.name},
              {"kind", r.kind},
              {"bytes", bytes},
              {"gbs", r.gbs},
              {"median_gbs", s.median},
              {"reference", r.reference.empty() ? Json(nullptr) : Json(r.reference)},
              {"ratio_to_plain_median", plain > 0                                 ? Json(s.median / plain)
                                        : r.reference.empty() && r.kind != "poll" ? Json(1.0)
                                                                                  : Json(nullptr)},
              {"warnings", rate_spread_warnings(s, "gbs")}};
}

void print_table(const Device& device, std::uint64_t bytes, int reps, const std::vector<Row>& rows) {
  std::printf(
      "# hetprobe bandwidth: %s (%s), %s pinned host buffer, %d samples each; GB/s = 10^9 B/s; poll: 8 B per "
      "thread-poll\n",
      device.info().name.c_str(), device.info().backend.c_str(), format_size(bytes).c_str(), reps);
  std::printf("%-24s %10s %10s %10s %10s\n", "traffic", "median", "min", "max", "vs_plain");
  for (const Row& r : rows) {
    const Summary s = summarize(r.gbs);
    const Json record = row_record(r, rows, bytes);
    char ratio[32] = "-";
    if (!r.reference.empty() && record["ratio_to_plain_median"].is_number())
      std::snprintf(ratio, sizeof ratio, "%.1f%%", 100 * record["ratio_to_plain_median"].get<double>());
    std::printf("%-24s %10.2f %10.2f %10.2f %10s\n", r.name.c_str(), s.median, s.min, s.max, ratio);
  }
}

int run(const Options& o, const std::vector<std::string>& argv) {
  // Every input checked before anything is opened or written.
  const std::uint64_t bytes = parse_option("--size", o.size, [](const std::string& t) { return parse_size(t); });
  std::vector<LoadKind> kinds = parse_option("--load", o.load, parse_load_kinds);
  std::erase(kinds, LoadKind::none);
  check_memory_available(bytes, "--size " + o.size);
  if (!o.out.empty()) check_results_target("bandwidth", o.out, Resume::unavailable);
  std::string why;
  auto device = open_device(o.device, o.gpu, &why);
  PinnedBuffer buf = device->alloc_pinned(bytes);
  std::optional<ResultsWriter> writer;
  if (!o.out.empty()) writer.emplace(open_results_for("bandwidth", o.out, Resume::unavailable).writer);

  MPI_Init(nullptr, nullptr);
  struct Finalize {  // also when a row fails or Ctrl-C stops the run: main() reports it
    ~Finalize() { MPI_Finalize(); }
  } finalize;
  const MpiContext mpi = mpi_context(MPI_COMM_SELF);
  const HostClock clock = HostClock::create("auto");
  Json kinds_json = Json::array();
  std::size_t load_rows = 0;
  for (LoadKind k : kinds) {
    kinds_json.push_back(to_string(k));
    load_rows += load_uses_threads(k) ? 2 : 1;
  }
  Json config{{"bytes", bytes}, {"reps", o.reps}, {"writer_duration_s", o.duration_s}, {"loads", kinds_json}};
  const Json header = run_header({"bandwidth", argv, why, config, false, nullptr, nullptr}, *device, mpi, clock);
  if (writer) writer->write(header);
  install_interrupt_handlers();

  const std::size_t total_rows = 4 + 2 + load_rows;  // plain passes, persistent writers, loads
  std::vector<Row> rows;
  rows.reserve(total_rows);  // so the Row& below stays valid
  Progress progress(total_rows);
  // A row is measured by `sample` (one GB/s each), then recorded at once, so Ctrl-C keeps every finished row.
  auto measure_row = [&](std::string name, std::string kind, std::string reference, const auto& sample) {
    rows.push_back({std::move(name), std::move(kind), std::move(reference), {}});
    Row& r = rows.back();
    for (int i = 0; i < o.reps; ++i) {
      throw_if_interrupted();
      r.gbs.push_back(sample());
    }
    if (writer) writer->write(row_record(r, rows, bytes));
    char median[64];
    std::snprintf(median, sizeof median, ": median %.2f GB/s", summarize(r.gbs).median);
    progress.print("bandwidth " + r.name + median);
  };
  for (LoadKind k : {LoadKind::write, LoadKind::read, LoadKind::copy_d2h, LoadKind::copy_h2d}) {
    (void)device->time_plain(k, buf.device(), bytes);  // warm-up: module load, first touch
    measure_row(k == LoadKind::write ? "plain one-pass kernel" : std::string("plain ") + to_string(k), to_string(k), "",
                [&] { return static_cast<double>(bytes) / device->time_plain(k, buf.device(), bytes) * 1e-9; });
  }
  std::uint64_t epoch = 0;
  for (Access a : {Access::stream, Access::stacked})
    measure_row(std::string(to_string(a)) + " (persistent)", "write", "plain one-pass kernel",
                [&] { return writer_gbs(*device, a, buf, bytes, o.duration_s, ++epoch); });
  auto engine = device->make_load_engine();
  for (LoadKind k : kinds)
    for (Access a : {Access::stream, Access::stacked}) {
      if (!load_uses_threads(k) && a == Access::stacked) continue;  // the copy engine has no access mode
      const std::string reference = k == LoadKind::write  ? "plain one-pass kernel"
                                    : k == LoadKind::poll ? ""
                                                          : std::string("plain ") + to_string(k);
      measure_row(std::string("load ") + to_string(k) + (load_uses_threads(k) ? std::string(" ") + to_string(a) : ""),
                  to_string(k), reference, [&] { return load_gbs(*engine, k, a, buf, bytes, o.duration_s, ++epoch); });
    }
  engine.reset();
  print_table(*device, bytes, o.reps, rows);
  return 0;
}

}  // namespace

CommandFn add_bandwidth_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand(
      "bandwidth",
      "How fast the device moves pinned host memory: a plain pass of each kind (write kernel, read kernel, one "
      "async copy each way) against the paper's persistent writer and the interference loads at full rate "
      "(single process)");
  c->add_option("--size", o->size, "Bytes of the pinned buffer")->capture_default_str();
  add_reps_option(c, o->reps, "Samples of each");
  c->add_option("--duration", o->duration_s, "Seconds each persistent writer or load sample runs")
      ->check(number_in(0, kMaxSampleSeconds, true, " s"))
      ->capture_default_str();
  c->add_option("--load", o->load,
                "Load kinds to measure at full rate: all, or a list of write, read, poll, "
                "copy-d2h, copy-h2d")
      ->capture_default_str();
  add_device_option(c, o->device);
  add_gpu_option(c, o->gpu);
  add_out_option(c, o->out, "Also write JSON Lines records here");
  return [o](const std::vector<std::string>& argv) { return run(*o, argv); };
}

}  // namespace hetprobe::cli
