// The bandwidth probe: how fast the device moves pinned host memory, each
// way, and how close the probe's own traffic comes to it. References: one
// plain pass of each kind, event-timed (a write kernel, a read kernel, one
// async copy each way). Beside them the paper's persistent writer (stream and
// stacked) and the interference loads at full rate, timed on the device over
// their stamps. The interference results are only as strong as these: a load
// should come close to its plain pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/enum_table.hpp"
#include "bench/core/results.hpp"
#include "probes/device/device.hpp"
#include "probes/load/load_engine.hpp"

namespace hetprobe {

// What a row measured, as its record's keys: the pass (a plain one, the
// paper's persistent writer, or a load at full rate), the traffic's kind and,
// for traffic of the GPU's threads beyond the plain passes, the access mode.
enum class BandwidthPass { plain, persistent, load };
inline constexpr EnumTable<BandwidthPass, 3> kBandwidthPassNames{"bandwidth pass",
                                                                 {{{BandwidthPass::plain, "plain"},
                                                                   {BandwidthPass::persistent, "persistent"},
                                                                   {BandwidthPass::load, "load"}}}};
inline const char* to_string(BandwidthPass p) { return kBandwidthPassNames.name(p); }
struct BandwidthRow {
  BandwidthPass pass = BandwidthPass::plain;
  LoadKind kind = LoadKind::write;
  std::optional<Access> access;  // none for the plain passes and the copy engine
  bool operator==(const BandwidthRow&) const = default;
};
// The row's display name (records' `writer`, the table's `traffic`): "plain
// one-pass kernel", "plain read", "stream (persistent)", "load read stacked".
std::string bandwidth_row_name(const BandwidthRow& row);
// The plain pass a row is compared with: that of its kind; none for the
// plain passes themselves and for poll (no plain pass polls).
std::optional<BandwidthRow> plain_reference(const BandwidthRow& row);

struct BandwidthConfig {
  std::uint64_t bytes = 0;      // of the pinned host buffer
  int reps = 5;                 // samples of each row
  double duration_s = 0.2;      // each persistent writer or load sample
  double timeout_s = 30;        // a sample may take this much longer before the run stops
  std::vector<LoadKind> loads;  // measured at full rate (none left out)

  Json to_json() const;  // the header's config
  // Rows (point records) a run makes: the plain passes, the persistent writers, the loads.
  std::size_t rows() const;
  // Records a run makes: the rows and the link record.
  std::size_t records() const;
};

// Measures every row in turn, `reps` samples each; a row's record goes to
// `sink` once its samples are in, so Ctrl-C keeps every finished row. Then
// the link record: the device's PCIe link from sysfs, read during a write
// load at full rate (skipped where the device has no PCI address).
void run_bandwidth(const BandwidthConfig& config, Device& device, const RecordSink& sink);

}  // namespace hetprobe
