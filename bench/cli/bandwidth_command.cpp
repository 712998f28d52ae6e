// `hetprobe bandwidth`: how hard the device can write pinned host memory.
// The reference is a plain one-pass kernel (one word per thread, timed with
// device events); beside it the interference writer in stream and stacked
// access, run for a fixed time and timed with the device timer over its
// post-ready passes. The interference results are only as strong as this
// writer: stacked access should come close to the plain kernel.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "command.hpp"
#include "hetprobe/device.hpp"
#include "hetprobe/errors.hpp"
#include "hetprobe/run_header.hpp"
#include "hetprobe/sizes.hpp"
#include "hetprobe/stats.hpp"

namespace hetprobe::cli {

namespace {

struct Options {
  std::string size = "256MiB";
  int reps = 10;
  double duration_s = 0.2;
  std::string device = "auto";
  int gpu = 0;
  std::string out;
};

// GB/s of the persistent writer over `duration_s` of post-ready passes.
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

int run(const Options& o, const std::vector<std::string>& argv) {
  const std::uint64_t bytes = parse_size(o.size);
  if (o.reps < 1) throw usage_error("--reps must be at least 1");
  if (!(o.duration_s > 0)) throw usage_error("--duration must be positive (seconds)");
  std::string why;
  auto device = open_device(o.device, o.gpu, &why);
  PinnedBuffer buf = device->alloc_pinned(bytes);
  std::optional<ResultsWriter> writer;
  if (!o.out.empty()) writer.emplace(o.out);

  MPI_Init(nullptr, nullptr);
  const MpiContext mpi = mpi_context(MPI_COMM_SELF);
  const HostClock clock = HostClock::create("auto");
  Json config{{"bytes", bytes}, {"reps", o.reps}, {"writer_duration_s", o.duration_s}};
  const Json header = run_header({"bandwidth", argv, why, config, false, nullptr, nullptr}, *device, mpi, clock);
  if (writer) writer->write(header);

  std::vector<double> plain, stream, stacked;
  std::uint64_t epoch = 0;
  device->time_plain_write(buf.device(), bytes);  // warm-up: module load, first touch
  for (int i = 0; i < o.reps; ++i) {
    plain.push_back(static_cast<double>(bytes) / device->time_plain_write(buf.device(), bytes) * 1e-9);
    stream.push_back(writer_gbs(*device, Access::stream, buf, bytes, o.duration_s, ++epoch));
    stacked.push_back(writer_gbs(*device, Access::stacked, buf, bytes, o.duration_s, ++epoch));
  }
  const double plain_median = summarize(plain).median;
  std::printf("# hetprobe bandwidth: %s (%s), %s pinned host buffer, %d samples each; GB/s = 10^9 B/s\n",
              device->info().name.c_str(), device->info().backend.c_str(), format_size(bytes).c_str(), o.reps);
  std::printf("%-22s %10s %10s %10s %12s\n", "writer", "median", "min", "max", "vs_plain");
  for (const auto& [name, v] : {std::pair{"plain one-pass kernel", &plain}, {"stream (persistent)", &stream},
                                {"stacked (persistent)", &stacked}}) {
    const Summary s = summarize(*v);
    std::printf("%-22s %10.2f %10.2f %10.2f %11.1f%%\n", name, s.median, s.min, s.max, 100 * s.median / plain_median);
    if (writer)
      writer->write(Json{{"record", "point"}, {"probe", "bandwidth"}, {"writer", name}, {"bytes", bytes},
                         {"gbs", *v}, {"median_gbs", s.median}, {"ratio_to_plain_median", s.median / plain_median}});
  }
  MPI_Finalize();
  return 0;
}

}  // namespace

CommandFn add_bandwidth_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand("bandwidth",
      "Pinned-host write bandwidth of the device: a plain one-pass kernel against the interference "
      "writer in stream and stacked access (single process)");
  c->add_option("--size", o->size, "Bytes of the pinned buffer written")->capture_default_str();
  c->add_option("--reps", o->reps, "Samples of each writer")->capture_default_str();
  c->add_option("--duration", o->duration_s, "Seconds each persistent-writer sample runs")->capture_default_str();
  c->add_option("--device", o->device, "Backend: auto, cuda, hip, host")->capture_default_str();
  c->add_option("--gpu", o->gpu, "Device ordinal within the backend")->capture_default_str();
  c->add_option("--out", o->out, "Also write JSON Lines records here");
  return [o](const std::vector<std::string>& argv) { return run(*o, argv); };
}

}  // namespace hetprobe::cli
