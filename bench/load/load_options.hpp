// The interference probe's load options, parsed: which kinds of traffic
// (--load), how fast (--load-rate), from how many GPUs (--load-gpus) and
// which (--load-devices). Every parser throws a usage Error naming the bad item.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/load/load_engine.hpp"

namespace hetprobe {

// "write,read" or "all" (= write, read, poll, copy-d2h, copy-h2d); "none" alone
// means no load at all (only the SSB baseline is measured).
std::vector<LoadKind> parse_load_kinds(const std::string& text);

// One --load-rate item: a fraction of the load's full rate on that GPU
// ("0.5", "50%"; in (0, 1]) or a rate per GPU ("12GB/s", 10^9 B/s; > 0).
// Rates are equal and ordered by value, never by their spelling: "50%" and
// "0.5" are one rate (a point keeps it through a run and --resume).
struct LoadRate {
  std::string label;    // as it was given, and as records keep it: "1", "0.5", "50%", "12GB/s"
  double fraction = 0;  // > 0 for a fraction
  double gbs = 0;       // > 0 for an absolute rate
  bool full() const { return fraction == 1; }
  friend bool operator==(const LoadRate& a, const LoadRate& b) { return a.fraction == b.fraction && a.gbs == b.gbs; }
  friend std::partial_ordering operator<=>(const LoadRate& a, const LoadRate& b) {
    if (const auto c = a.fraction <=> b.fraction; c != 0) return c;
    return a.gbs <=> b.gbs;
  }
};
// One item (the one parser: options, and records read back by their label).
LoadRate parse_load_rate(const std::string& item);
// A list, each rate at most once.
std::vector<LoadRate> parse_load_rates(const std::string& text);

// A load as hetprobe names it everywhere (show's tables, progress lines, the
// report and Python's frames): "write x2 @0.5", its kind, its GPUs and its
// rate where that is not the full one. `brief` leaves "x1" out, as the bare
// programs, which load from one GPU, name their loads ("write"; "write x2").
std::string load_label(std::string_view kind, int gpus, const std::optional<LoadRate>& rate, bool brief = false);

// --load-gpus: counts of GPUs loaded at once, a list of items each a count
// ("0", "2"), "all", or a range "A:B" (B may be "all"). 0 is no load (the
// SSB baseline). `available`: GPUs on the node; a count above it is an error.
// Sorted, duplicates removed.
std::vector<int> parse_load_gpu_counts(const std::string& text, int available);

// --load-devices: the order in which GPUs join a load ("2,3"); empty text: the
// sender's GPU first, then the others by ordinal. Every ordinal < available, once.
std::vector<int> load_device_order(const std::string& text, int own_ordinal, int available);

// --load-bytes: "auto" (0), "message" (the paper's: the message size), or a size.
struct LoadBytes {
  bool message = false;
  std::uint64_t bytes = 0;  // 0 with !message: auto
  std::string label() const;
};
LoadBytes parse_load_bytes(const std::string& text);
// auto: a pass of the load outlasts the longest send: 8 times the largest
// message, at least 256 MiB (about 5 ms at 50 GB/s).
std::uint64_t auto_load_bytes(std::uint64_t largest_message);

}  // namespace hetprobe
