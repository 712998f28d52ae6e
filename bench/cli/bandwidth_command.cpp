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

#include "command.hpp"
#include "hetprobe/device.hpp"
#include "hetprobe/errors.hpp"
#include "hetprobe/load_engine.hpp"
#include "hetprobe/load_options.hpp"
#include "hetprobe/run_header.hpp"
#include "hetprobe/sizes.hpp"
#include "hetprobe/stats.hpp"

namespace hetprobe::cli {

namespace {

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
  std::this_thread::sleep_for(std::chrono::duration<double>(duration_s));
  d.request_stop(epoch);
  const WriterOutcome o = d.join_writer();
  if (o.status != WriterStatus::ok) throw Error(ErrorKind::timeout, "the writer timed out");
  const double seconds = static_cast<double>(o.t_end_ticks - o.t_ready_ticks) / d.info().timer_hz;
  return static_cast<double>(bytes) * static_cast<double>(o.passes) / seconds * 1e-9;
}

// GB/s of a load at full rate over `duration_s`, from its stamps (ready to end).
double load_gbs(LoadEngine& e, LoadKind kind, Access access, const PinnedBuffer& buf,
                std::uint64_t bytes, double duration_s, std::uint64_t epoch) {
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

int run(const Options& o, const std::vector<std::string>& argv) {
  const std::uint64_t bytes = parse_size(o.size);
  if (o.reps < 1) throw usage_error("--reps must be at least 1");
  if (!(o.duration_s > 0)) throw usage_error("--duration must be positive (seconds)");
  std::vector<LoadKind> kinds = parse_load_kinds(o.load);
  std::erase(kinds, LoadKind::none);
  std::string why;
  auto device = open_device(o.device, o.gpu, &why);
  PinnedBuffer buf = device->alloc_pinned(bytes);
  std::optional<ResultsWriter> writer;
  if (!o.out.empty()) writer.emplace(o.out);

  MPI_Init(nullptr, nullptr);
  const MpiContext mpi = mpi_context(MPI_COMM_SELF);
  const HostClock clock = HostClock::create("auto");
  Json kinds_json = Json::array();
  for (LoadKind k : kinds) kinds_json.push_back(to_string(k));
  Json config{{"bytes", bytes}, {"reps", o.reps}, {"writer_duration_s", o.duration_s}, {"loads", kinds_json}};
  const Json header = run_header({"bandwidth", argv, why, config, false, nullptr, nullptr}, *device, mpi, clock);
  if (writer) writer->write(header);

  std::vector<Row> rows;
  auto row = [&](std::string name, std::string kind, std::string reference) -> Row& {
    rows.push_back({std::move(name), std::move(kind), std::move(reference), {}});
    return rows.back();
  };
  for (LoadKind k : {LoadKind::write, LoadKind::read, LoadKind::copy_d2h, LoadKind::copy_h2d}) {
    (void)device->time_plain(k, buf.device(), bytes);  // warm-up: module load, first touch
    Row& r = row(k == LoadKind::write ? "plain one-pass kernel" : std::string("plain ") + to_string(k),
                 to_string(k), "");
    for (int i = 0; i < o.reps; ++i) r.gbs.push_back(static_cast<double>(bytes) / device->time_plain(k, buf.device(), bytes) * 1e-9);
  }
  std::uint64_t epoch = 0;
  for (Access a : {Access::stream, Access::stacked}) {
    Row& r = row(std::string(to_string(a)) + " (persistent)", "write", "plain one-pass kernel");
    for (int i = 0; i < o.reps; ++i) r.gbs.push_back(writer_gbs(*device, a, buf, bytes, o.duration_s, ++epoch));
  }
  auto engine = device->make_load_engine();
  for (LoadKind k : kinds)
    for (Access a : {Access::stream, Access::stacked}) {
      if (!load_uses_threads(k) && a == Access::stacked) continue;  // the copy engine has no access mode
      const std::string reference = k == LoadKind::write ? "plain one-pass kernel"
                                    : k == LoadKind::poll ? "" : std::string("plain ") + to_string(k);
      Row& r = row(std::string("load ") + to_string(k) + (load_uses_threads(k) ? std::string(" ") + to_string(a) : ""),
                   to_string(k), reference);
      for (int i = 0; i < o.reps; ++i) r.gbs.push_back(load_gbs(*engine, k, a, buf, bytes, o.duration_s, ++epoch));
    }
  engine.reset();

  std::printf("# hetprobe bandwidth: %s (%s), %s pinned host buffer, %d samples each; GB/s = 10^9 B/s; poll: 8 B per "
              "thread-poll\n", device->info().name.c_str(), device->info().backend.c_str(), format_size(bytes).c_str(),
              o.reps);
  std::printf("%-24s %10s %10s %10s %10s\n", "traffic", "median", "min", "max", "vs_plain");
  for (const Row& r : rows) {
    const Summary s = summarize(r.gbs);
    double plain = 0;
    for (const Row& p : rows)
      if (!r.reference.empty() && p.name == r.reference) plain = summarize(p.gbs).median;
    char ratio[32] = "-";
    if (plain > 0) std::snprintf(ratio, sizeof ratio, "%.1f%%", 100 * s.median / plain);
    std::printf("%-24s %10.2f %10.2f %10.2f %10s\n", r.name.c_str(), s.median, s.min, s.max, ratio);
    if (writer)
      writer->write(Json{{"record", "point"}, {"probe", "bandwidth"}, {"writer", r.name}, {"kind", r.kind},
                         {"bytes", bytes}, {"gbs", r.gbs}, {"median_gbs", s.median},
                         {"reference", r.reference.empty() ? Json(nullptr) : Json(r.reference)},
                         {"ratio_to_plain_median", plain > 0 ? Json(s.median / plain)
                                                             : r.reference.empty() && r.kind != "poll" ? Json(1.0)
                                                                                                       : Json(nullptr)}});
  }
  MPI_Finalize();
  return 0;
}

}  // namespace

CommandFn add_bandwidth_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("bandwidth",
      "How fast the device moves pinned host memory: a plain pass of each kind (write kernel, read kernel, one "
      "async copy each way) against the paper's persistent writer and the interference loads at full rate "
      "(single process)");
  c->add_option("--size", o->size, "Bytes of the pinned buffer")->capture_default_str();
  c->add_option("--reps", o->reps, "Samples of each")->capture_default_str();
  c->add_option("--duration", o->duration_s, "Seconds each persistent writer or load sample runs")->capture_default_str();
  c->add_option("--load", o->load, "Load kinds to measure at full rate: all, or a list of write, read, poll, "
                "copy-d2h, copy-h2d")->capture_default_str();
  c->add_option("--device", o->device, "Backend: auto, cuda, hip, host")->capture_default_str();
  c->add_option("--gpu", o->gpu, "Device ordinal within the backend")->capture_default_str();
  c->add_option("--out", o->out, "Also write JSON Lines records here");
  return [o](const std::vector<std::string>& argv) { return run(*o, argv); };
}

}  // namespace hetprobe::cli
