// The interference headline of a run, chosen once over its aggregates
// (interference_aggregate.hpp): the warm send's largest slowdown that its
// interval supports (else the largest median ratio, and on what grounds), the
// same of the cold sends, a claimed speed-up, for files from before the
// rounds the worst median ratio, and the paper's writer's largest and typical
// ratios. The report writes it in words, characterize
// writes its numbers into characterize.json (headline_numbers), and a site's
// check reads those; none chooses again.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "base/headline_choice.hpp"
#include "bench/interference/interference_aggregate.hpp"

namespace hetprobe {

// Which steps are warm sends under load (the loads, the write load's rates)
// and which cold ones: characterize's step names, or a report's mapping of
// its files' steps.
struct HeadlineSteps {
  std::vector<std::string> warm{"interference", "interference-rate"};
  std::vector<std::string> cold{"interference-cold"};
  std::vector<std::string> paper{"interference-paper"};  // the paper's writer, message-sized buffers
};

// A headline row's point (an index into the aggregates) and its grounds.
struct SlowdownPick {
  std::size_t point = 0;
  HeadlineVerdict verdict = HeadlineVerdict::no_interval;
  std::vector<std::size_t> near_ties;  // the claimed slowdowns as large within the noise, largest first
};
struct SpeedupPick {
  std::size_t fastest = 0;  // the smallest claimed ratio
  std::size_t count = 0;    // how many points claim a speed-up
};

struct InterferenceHeadline {
  bool judged = false;                  // measured in rounds: picks by intervals, else `worst`
  std::vector<std::string> warm_steps;  // the warm steps of the most launches, which the warm pick is over
  std::optional<SlowdownPick> warm, cold;
  std::optional<SpeedupPick> speedup;        // over the warm and cold candidates
  std::optional<std::size_t> worst;          // before the rounds: the largest ratio of the warm steps' points
  std::optional<std::size_t> paper_largest;  // the paper steps' largest ratio (its interval beside it)
  std::vector<LayoutRatio> paper_typical;    // each layout's median ratio over the paper steps' points
};

// The headline of these aggregates. Candidates are the load points (not SSB)
// with a ratio; the warm ones are those of the warm steps measured in the
// most launches (most_launched_parts: an interval over 3 launches holds the
// noise between launches that one launch's misses).
InterferenceHeadline interference_headline(const std::vector<InterferenceAggregate>& aggregates,
                                           const HeadlineSteps& steps = {});

// The headline's numbers, for characterize.json and a site's checks: per pick
// ("warm", "cold", "speedup", "worst", "paper_largest") {quantity, verdict, value, lower,
// upper (null without an interval), unit, effect, interval_over, launches,
// point {step, size_bytes, layout, access, load_kind, load_gpus, load_rate},
// send_time_ns, ssb_send_time_ns, traffic_gbs}; null where there is none; and
// "paper_typical": [{layout, ratio_to_ssb}].
Json headline_numbers(const InterferenceHeadline& headline, const std::vector<InterferenceAggregate>& aggregates);

}  // namespace hetprobe
