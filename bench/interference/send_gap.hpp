// What the sender does just before each timed send (--gap): nothing (back to
// back, warm: the default), spin on its core for a time (the core idles in
// the application's sense: caches and predictors go cold as other work would
// leave them, frequency may drop), or sweep a buffer, reading and writing it
// as computing between sends would. Baseline and loaded sends get the same gap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/enum_table.hpp"
#include "bench/core/results.hpp"

namespace hetprobe {

enum class GapKind { none, spin, sweep };

// The record's gap.kind; printed only (--gap takes "0", a time or sweep:SIZE).
inline constexpr EnumTable<GapKind, 3> kGapKindNames{"gap kind",
                                                     {{{GapKind::none, "none", EnumUse::internal},
                                                       {GapKind::spin, "spin", EnumUse::internal},
                                                       {GapKind::sweep, "sweep", EnumUse::internal}}}};

struct SendGap {
  GapKind kind = GapKind::none;
  double seconds = 0;         // spin: how long
  std::uint64_t bytes = 0;    // sweep: the buffer read and written once
  std::string label() const;  // "0", "2ms", "sweep:64MiB"
  Json to_json() const;       // {"kind", "seconds", "bytes", "label"}
};

// "0", a time with a unit (ns, us, ms, s: "2ms", "500us"), or "sweep:SIZE"
// (a size as --sizes takes it). Throws a usage Error naming the text for a
// negative or non-finite time, a time above 10 s, a zero or unparsable size.
SendGap parse_send_gap(const std::string& text);

// Spends the gap on the calling thread. `buffer` is the sweep's memory
// (at least gap.bytes; ignored for the other kinds). Returns a value the
// sweep computed, so the compiler keeps its reads.
std::uint64_t spend_gap(const SendGap& gap, std::vector<std::uint64_t>& buffer);

}  // namespace hetprobe
