// The human-readable table of an interference run, printed row by row as
// points finish (so a long or killed run shows what it has).
#pragma once

#include <cstdio>

#include "hetprobe/results.hpp"

namespace hetprobe {

class InterferenceTable {
 public:
  explicit InterferenceTable(std::FILE* out) : out_(out) {}
  void print_heading(const Json& header);
  void print_row(const Json& point);
  // The harness's own cost beside the smallest median it timed.
  void print_footer(const Json& header);

 private:
  std::FILE* out_;
  double smallest_median_ns_ = 0;
  double harness_at_smallest_ns_ = 0;  // that point's own empty-region median
  int rows_ = 0;
};

}  // namespace hetprobe
