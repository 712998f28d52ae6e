// The bandwidth probe: how fast the device moves pinned host memory, each
// way, and how close the probe's own traffic comes to it. References: one
// plain pass of each kind, event-timed (a write kernel, a read kernel, one
// async copy each way). Beside them the paper's persistent writer (stream and
// stacked) and the interference loads at full rate, timed on the device over
// their stamps. The interference results are only as strong as these: a load
// should come close to its plain pass.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/core/results.hpp"
#include "probes/device/device.hpp"
#include "probes/load/load_engine.hpp"

namespace hetprobe {

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
