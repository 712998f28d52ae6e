#include "bench/bandwidth/bandwidth.hpp"

#include <string>

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/stats.hpp"
#include "bench/core/noise.hpp"
#include "probes/load/load_engine.hpp"
#include "probes/writer/writer_engine.hpp"
#include "topology/pci_link.hpp"

namespace hetprobe {

namespace {

// GB/s of the paper's persistent writer over `duration_s` of post-ready passes.
double writer_gbs(WriterEngine& w, double timer_hz, Access access, const PinnedBuffer& buf, std::uint64_t bytes,
                  double duration_s, double timeout_s, std::uint64_t epoch) {
  WriterTask t;
  t.access = access;
  t.post = buf.device();
  t.post_bytes = bytes;
  t.epoch = epoch;
  t.timeout_s = duration_s + timeout_s;
  w.start(t);
  w.wait_ready(epoch, t.timeout_s);
  try {
    sleep_unless_interrupted(duration_s);
  } catch (...) {
    w.request_stop(epoch);
    (void)w.join();
    throw;
  }
  w.request_stop(epoch);
  const WriterOutcome o = w.join();
  if (o.status != WriterStatus::ok) throw Error(ErrorKind::timeout, "the writer timed out");
  const double seconds = static_cast<double>(o.t_end_ticks - o.t_ready_ticks) / timer_hz;
  return static_cast<double>(bytes) * static_cast<double>(o.passes) / seconds * 1e-9;
}

// GB/s of a load at full rate over `duration_s`, from its stamps (ready to end).
double load_gbs(LoadEngine& e, LoadKind kind, Access access, const PinnedBuffer& buf, std::uint64_t bytes,
                double duration_s, double timeout_s, std::uint64_t epoch) {
  LoadTask t;
  t.kind = kind;
  t.access = access;
  t.target = buf.device();
  t.target_bytes = bytes;
  t.epoch = epoch;
  t.timeout_s = duration_s + timeout_s;
  return run_for_rate_gbs(e, t, duration_s);
}

struct Row {
  BandwidthRow key;
  std::vector<double> gbs;
};

// The row's record: its keys and display name, its samples, median, and
// ratio to its plain reference (measured before it: the plain rows come first).
Json row_record(const Row& r, const std::vector<Row>& rows, std::uint64_t bytes) {
  const Summary s = summarize(r.gbs);
  const std::optional<BandwidthRow> reference = plain_reference(r.key);
  double plain = 0;
  for (const Row& p : rows)
    if (reference && p.key == *reference) plain = summarize(p.gbs).median;
  return Json{{"record", "point"},
              {"probe", "bandwidth"},
              {"writer", bandwidth_row_name(r.key)},
              {"pass", to_string(r.key.pass)},
              {"kind", to_string(r.key.kind)},
              {"access", r.key.access ? Json(to_string(*r.key.access)) : Json(nullptr)},
              {"bytes", bytes},
              {"gbs", r.gbs},
              {"gbs_summary", summary_json(r.gbs)},  // the statistics computed once, here
              {"median_gbs", s.median},
              {"reference", reference ? Json(bandwidth_row_name(*reference)) : Json(nullptr)},
              {"ratio_to_plain_median", plain > 0                            ? Json(s.median / plain)
                                        : r.key.pass == BandwidthPass::plain ? Json(1.0)
                                                                             : Json(nullptr)},
              {"warnings", rate_spread_warnings(s, "gbs")}};
}

// How long the write load runs before the link is read: NVIDIA GPUs lower an
// idle link's speed and raise it again once traffic starts.
constexpr double kLinkLoadSeconds = 0.05;

// The link record: the device's PCIe link from sysfs, read while a full-rate
// write load runs, so a GPU that slows its idle link is not taken for a
// downtrained one. Skipped (no load run) where the device has no PCI address.
Json link_record(Device& device, LoadEngine& engine, const PinnedBuffer& buf, std::uint64_t bytes, double timeout_s,
                 std::uint64_t epoch) {
  const std::string bus = device.info().pci_bus_id;
  Json r{{"record", "link"}, {"probe", "bandwidth"}, {"pci_bus_id", bus.empty() ? Json(nullptr) : Json(bus)}};
  if (bus.empty()) {
    PciLink none;
    none.problem = "the device has no PCI address (" + device.info().backend + " backend)";
    r["read_while"] = nullptr;
    r.update(none.to_json());
    return r;
  }
  LoadTask t;
  t.kind = LoadKind::write;
  t.access = Access::stacked;
  t.target = buf.device();
  t.target_bytes = bytes;
  t.epoch = epoch;
  t.timeout_s = kLinkLoadSeconds + timeout_s;
  engine.start(t);
  PciLink link;
  try {
    engine.wait_ready(t.timeout_s);
    sleep_unless_interrupted(kLinkLoadSeconds);
    link = read_pci_link(bus);
  } catch (...) {
    engine.request_stop();
    (void)engine.join();
    throw;
  }
  engine.request_stop();
  if (engine.join().timed_out) throw Error(ErrorKind::timeout, "the write load under the link read timed out");
  r["pci_bus_id"] = link.address;  // as sysfs names it
  r["read_while"] = link.read() ? Json("write load at full rate") : Json(nullptr);
  r.update(link.to_json());
  return r;
}

}  // namespace

std::string bandwidth_row_name(const BandwidthRow& row) {
  const std::string kind = to_string(row.kind);
  switch (row.pass) {
    case BandwidthPass::plain: return row.kind == LoadKind::write ? "plain one-pass kernel" : "plain " + kind;
    case BandwidthPass::persistent: return std::string(row.access ? to_string(*row.access) : "?") + " (persistent)";
    case BandwidthPass::load: break;
  }
  return "load " + kind + (row.access ? std::string(" ") + to_string(*row.access) : "");
}

std::optional<BandwidthRow> plain_reference(const BandwidthRow& row) {
  if (row.pass == BandwidthPass::plain || row.kind == LoadKind::poll) return std::nullopt;
  return BandwidthRow{BandwidthPass::plain, row.kind, std::nullopt};
}

Json BandwidthConfig::to_json() const {
  Json kinds = Json::array();
  for (LoadKind k : loads) kinds.push_back(to_string(k));
  return Json{{"bytes", bytes}, {"reps", reps}, {"writer_duration_s", duration_s}, {"loads", kinds}};
}

std::size_t BandwidthConfig::rows() const {
  std::size_t load_rows = 0;
  for (LoadKind k : loads) load_rows += load_uses_threads(k) ? 2 : 1;
  return 4 + 2 + load_rows;
}

std::size_t BandwidthConfig::records() const { return rows() + 1; }

void run_bandwidth(const BandwidthConfig& c, Device& device, const RecordSink& sink) {
  PinnedBuffer buf = device.alloc_pinned(c.bytes);
  std::vector<Row> rows;
  rows.reserve(c.rows());  // so the Row& below stays valid
  // A row is measured by `sample` (one GB/s each), then recorded at once.
  auto measure_row = [&](BandwidthRow key, const auto& sample) {
    rows.push_back({key, {}});
    Row& r = rows.back();
    for (int i = 0; i < c.reps; ++i) {
      throw_if_interrupted();
      r.gbs.push_back(sample());
    }
    sink(row_record(r, rows, c.bytes));
  };
  auto engine = device.make_load_engine();
  for (LoadKind k : {LoadKind::write, LoadKind::read, LoadKind::copy_d2h, LoadKind::copy_h2d}) {
    (void)engine->time_plain(k, buf.device(), c.bytes);  // warm-up: module load, first touch
    measure_row({BandwidthPass::plain, k, std::nullopt},
                [&] { return static_cast<double>(c.bytes) / engine->time_plain(k, buf.device(), c.bytes) * 1e-9; });
  }
  std::uint64_t epoch = 0;
  auto writer = device.make_writer_engine();
  for (Access a : {Access::stream, Access::stacked})
    measure_row({BandwidthPass::persistent, LoadKind::write, a}, [&] {
      return writer_gbs(*writer, device.info().timer_hz, a, buf, c.bytes, c.duration_s, c.timeout_s, ++epoch);
    });
  for (LoadKind k : c.loads)
    for (Access a : {Access::stream, Access::stacked}) {
      if (!load_uses_threads(k) && a == Access::stacked) continue;  // the copy engine has no access mode
      measure_row({BandwidthPass::load, k, load_uses_threads(k) ? std::optional(a) : std::nullopt},
                  [&] { return load_gbs(*engine, k, a, buf, c.bytes, c.duration_s, c.timeout_s, ++epoch); });
    }
  throw_if_interrupted();
  sink(link_record(device, *engine, buf, c.bytes, c.timeout_s, ++epoch));
}

}  // namespace hetprobe
