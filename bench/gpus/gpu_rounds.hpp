// A run's gpus rounds as the verdicts read them back: every visit of every
// launch, who the GPUs are, and each GPU's PCIe link; and the one estimate of
// a number from its visits (node_verdict.hpp says how it is made).
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/stats.hpp"
#include "bench/core/results.hpp"
#include "bench/gpus/gpu_metrics.hpp"

namespace hetprobe {

// One GPU measured once in one round of one launch.
struct GpuVisit {
  std::size_t launch = 0;  // the run's launches, in the order read
  GpusPhase phase = GpusPhase::measure;
  int round = 0;
  int gpu = 0;  // the rank that measured it
  std::array<std::optional<double>, kGpuMetrics.size()> values{};
};

struct GpuIdentity {
  std::string pci_bus_id;  // "" where the device has none
  std::string model;       // device_model() of its name
  std::string host;        // of its rank
  int ordinal = -1;        // in its backend's runtime (-1: not recorded)
};

// Which device a rank measured, as text: its host and PCI address, else its
// host and ordinal ("node1 0000:00:06.0", "node1 device 0").
std::string device_key(const std::string& host, const std::string& pci_bus_id, int ordinal);

// The first two ranks (by rank) whose devices (rank -> device_key) are one,
// or none: what the gpus probe refuses and a verdict never compares.
std::optional<std::pair<int, int>> ranks_sharing_a_device(const std::map<int, std::string>& device_of);

// "ranks 0 and 1 measured one device (node1 0000:00:06.0)" where two ranks of
// the run measured the same device, else "".
std::string shared_device(const std::map<int, GpuIdentity>& gpus);

// The link record of the bandwidth probe for one GPU.
struct LinkReading {
  bool read = false;  // status ok
  bool below_max = false;
  std::optional<double> speed_gts, max_speed_gts;
  std::optional<int> width, max_width;
  std::string read_while;  // "" where not said
};

struct RunRounds {
  std::string where;  // the run's directory (or file), for messages
  std::vector<GpuVisit> visits;
  std::map<int, GpuIdentity> gpus;   // every GPU of the gpus headers' ranks
  std::map<int, LinkReading> links;  // by rank
  std::set<std::string> hosts, backends;
  std::size_t launches_of(GpusPhase phase) const;
};

// Reads the gpus probe's headers and gpu_round records and the bandwidth
// probe's link records of a run's files (other records are passed over). A
// gpus header starts a launch. Malformed records are usage Errors naming FILE:LINE.
RunRounds read_run_rounds(const std::vector<ResultsFile>& files);

// A number from its visits, grouped by launch: the median of them all, and a
// 95% interval, the hull of the median's interval over the visits (6 or more)
// and, with 3 launches or more, the launches' interval (pool_launch_ratios of
// their medians). No interval: too few visits and launches to support one.
struct Estimate {
  std::size_t n = 0;
  double median = 0;
  std::optional<Interval> ci95;
  std::vector<double> launch_medians;
  Json to_json() const;
  // "0.769 (95% CI 0.741-0.801, 18 rounds in 3 launches)"; `unit` after the numbers.
  std::string text(const std::string& unit = "") const;
};
Estimate estimate(const std::map<std::size_t, std::vector<double>>& by_launch);

// "GPU 1 (0000:07:00.0)": a GPU of the run by rank and PCI address.
std::string gpu_name(int gpu, const RunRounds& run);

// A flagged number, as every verdict lists it (docs/results-schema.md,
// "gpus_verdict"): value and reference NaN where there is none.
struct Flag {
  int gpu = 0;
  std::string metric, unit;
  double value = 0, reference = 0;
  std::string reference_kind;  // "node median", "the other GPU", "link maximum", "baseline"
  double tolerance = 0;
  std::string status;  // "unconfirmed", "confirmed", "transient", "link", "outside"
  std::string why;
};
Json flag_record(const RunRounds& run, const Flag& f);

// "23.5% below" (or "above") of a deviation (value / reference - 1), as every verdict line says it.
std::string deviation_text(double deviation);

}  // namespace hetprobe
