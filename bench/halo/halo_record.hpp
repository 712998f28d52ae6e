// The halo probe's records (docs/results-schema.md) and its table.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/record_field.hpp"
#include "bench/core/table.hpp"
#include "bench/halo/halo.hpp"
#include "bench/model/halo_model.hpp"

namespace hetprobe {

// Eq. 1's device terms from a run, ns: the median pack time of the smallest
// message this rank sends (SP) and the median unpack time of the largest it
// receives (LUP), with memcpy staging beside it the median time of that
// message's copy to device memory (also LUP's; 0 for pinned staging).
struct HaloModelInputs {
  double pack_smallest_ns = 0, unpack_largest_ns = 0, copy_largest_ns = 0;
};
HaloModelInputs model_inputs(const HaloRun& run, const HaloLayout& layout);

// One variant on one rank: per-iteration times (and, on rank 0, the slowest
// rank's per iteration), per-message device times and rates (and staging
// copies), the critical path's medians, payload check, timeline.
Json halo_record(const HaloRun& run, const HaloLayout& layout, const HaloConfig& config,
                 const std::vector<double>& slowest_rank_ns);

// The MPI parameters (measured one-way times and their postal fit, or given)
// and Eq. 1's lower bound per variant, in ns, beside the measured medians.
struct HaloModelSetup {
  std::vector<std::uint64_t> sizes;  // measured one-way sizes (empty when given)
  std::vector<double> one_way_ns;
  PostalModel postal;  // fitted or given
  bool given = false;
  std::optional<KModel> kmodel;  // when set, T_comm is Eq. 3 (alpha from postal)
};
Json halo_model_record(const HaloModelSetup& setup, const HaloLayout& layout, const std::vector<HaloRun>& runs);

// The tables of a run's records (halo_table.cpp), and a record's label:
// "halo cube-400 baseline: median 123.4 ns per iteration, ok".
Report halo_report(const ResultsFile& file);
std::string halo_record_label(const Json& record);
// A record's layout as the tables show it: "cube 400", or the layout's own text.
std::string halo_short_layout(const RecordRef& record);
// The columns every halo table starts with: the layout as shown (text, the
// first 12 characters of halo_short_layout), the layout and its cube (data);
// and their cells.
std::vector<Column> halo_layout_columns();
std::vector<Json> halo_layout_cells(const std::string& shown, const std::string& layout, int cube);

}  // namespace hetprobe
