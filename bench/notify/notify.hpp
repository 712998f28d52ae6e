// The notification probes (paper 002 Sec. 3.1; thesis 003; DIGEST 4.2, Q11-Q13):
// what one CPU<->GPU notification through a flag costs each side, the round
// trip in both directions, and every other way the two can signal each other,
// side by side. Single process: one device per rank.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/enum_table.hpp"
#include "bench/core/results.hpp"
#include "bench/protocols/flag_exchange.hpp"
#include "probes/device/device.hpp"
#include "probes/device/device_names.hpp"
#include "probes/device/host_clock.hpp"
#include "probes/signal/signal_engine.hpp"

namespace hetprobe {

// "volatile,acqrel,volatile:relaxed"; throws a usage Error naming what is wrong.
std::vector<OrderPair> parse_order_pairs(const std::string& text);
std::vector<LaunchMechanism> all_launch_mechanisms();
// Mechanism records of the mechanisms part: the flag mechanisms, then every launch mechanism.
std::size_t notify_mechanism_count();

// handover: one flag read + write on a flag the other side wrote last (Elis
// et al. 2024, Table 1); overhead: a loop of them on a line the side owns.
enum class NotifyPart { handover, overhead, roundtrip, mechanisms };
inline constexpr EnumTable<NotifyPart, 4> kNotifyPartNames{"part",
                                                           {{{NotifyPart::handover, "handover"},
                                                             {NotifyPart::overhead, "overhead"},
                                                             {NotifyPart::roundtrip, "roundtrip"},
                                                             {NotifyPart::mechanisms, "mechanisms"}}}};

struct NotifyConfig {
  std::vector<NotifyPart> parts{NotifyPart::handover, NotifyPart::overhead, NotifyPart::roundtrip,
                                NotifyPart::mechanisms};
  std::vector<OrderPair> orders;
  std::vector<FlagPlacement> placements{FlagPlacement::pinned};
  std::vector<FlagSpacing> spacings{FlagSpacing::line};
  HostCoherence host_memory = HostCoherence::default_kind;
  int handover_samples = 1000;  // handover pairs per side, one sample each
  int overhead_ops = 1000;      // read+write pairs per overhead sample
  int overhead_samples = 100;
  int exchanges = 10000;  // round trips per configuration
  int mechanism_samples = 2000;
  int warmup = 100;
  double timeout_s = 30;
  Json to_json() const;
};

// Throws a usage Error when the config asks for memory this device lacks
// (managed flags without concurrent managed access, HIP-only host memory kinds).
void check_notify_config(const NotifyConfig& config, const DeviceInfo& device);

// Runs the configured parts on `device`, timing the host side with `clock`.
void run_notify(const NotifyConfig& config, Device& device, const HostClock& clock, const RecordSink& sink);

}  // namespace hetprobe
