#include "bench/model/model_inputs.hpp"

#include <sys/stat.h>

#include <cmath>
#include <map>
#include <string>

#include "base/errors.hpp"
#include "bench/core/record_field.hpp"

namespace hetprobe {

namespace {

namespace fs = std::filesystem;

// NAME.jsonl, else NAME.jsonl.gz, in `dir`; empty when neither is there.
fs::path results_in(const fs::path& dir, const std::string& name) {
  for (const char* ext : {".jsonl", ".jsonl.gz"}) {
    struct stat st{};
    const fs::path p = dir / (name + ext);
    if (::stat(p.c_str(), &st) == 0) return p;
  }
  return {};
}

// What the fit can use of a round's number: a time of a send (ns) from a
// picosecond to 1000 s, or a ratio to SSB from 0.001 to 1000; outside, a
// value is a damaged file, not a measurement, and is refused naming it.
struct Range {
  double low, high;
  const char* what;
};
constexpr Range kRoundTimeNs{1e-3, 1e12, "a send time in ns above a picosecond and below 1000 s"};
constexpr Range kRatio{1e-3, 1e3, "a ratio to SSB from 0.001 to 1000"};

// A list of round values; null rounds (no measurement) stay NaN, anything
// else that is not a number in `range` is a usage Error naming the field.
std::vector<double> numbers(const RecordRef& r, const std::string& path, const Range& range) {
  std::vector<double> out;
  const Json& v = field_json(r, path);
  if (!v.is_array()) bad_field(r, path, "an array of numbers or nulls");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Json& x = v[i];
    if (x.is_null()) {
      out.push_back(std::nan(""));
      continue;
    }
    const double value = x.is_number() ? x.get<double>() : std::nan("");
    if (!(value >= range.low && value <= range.high))
      throw usage_error(std::string(r.place) + ": field '" + path + "[" + std::to_string(i) + "]': expected " +
                        range.what + " (or null), got " + x.dump() + ": the node model fits measurements only");
    out.push_back(value);
  }
  return out;
}

// The key of a point within its file: a second record of one key is a
// damaged or hand-merged file, whose points would both be fitted.
std::string point_key_text(const RecordRef& r) {
  std::string key;
  for (const char* field :
       {"size_bytes", "layout", "access", "load_kind", "load_gpus", "load_rate", "send_mode", "writer_side"}) {
    const Json* v = find_field(r, field);
    key += (v != nullptr ? v->dump() : "null") + " ";
  }
  return key;
}

}  // namespace

Json node_of(const Json& header) {
  const Json device = header.value("device", Json());
  return {{"host", header.value("host", Json())},
          {"device", device.is_object() ? device.value("name", Json()) : Json()}};
}

NodeRun read_node_run(const fs::path& path) {
  std::vector<fs::path> paths;
  if (hetprobe::is_directory(path)) {
    for (const char* name : {"interference", "interference-rate"})
      if (fs::path p = results_in(path, name); !p.empty()) paths.push_back(p);
    if (paths.empty())
      throw usage_error(path.string() + " holds no interference results (interference.jsonl): the node model is " +
                        "fitted from a `hetprobe characterize` run's interference series");
  } else {
    paths.push_back(path);
  }
  NodeRun run;
  for (const fs::path& p : paths) {
    ResultsFile f = read_results(p);
    if (f.records.empty() || f.probe() != "interference")
      throw usage_error(p.string() + " is not an interference results file: the node model is fitted from a " +
                        "characterize run's interference series");
    const Json node = node_of(f.records.front());
    if (run.files.empty()) run.node = node;
    if (node != run.node)
      throw usage_error(p.string() + " was measured on " + node.dump() + ", " + run.files.front().path.string() +
                        " on " + run.node.dump() + ": one node's run only");
    if (f.truncated_tail)  // show names a cut last line; a fit from what is left would say nothing of it
      throw usage_error(p.string() + ": its last line is cut (a killed run?): the node model fits whole files; " +
                        "fit a run whose interference steps finished");
    run.files.push_back(std::move(f));
  }
  return run;
}

FitInputs fit_inputs(const NodeRun& run) {
  FitInputs in;
  for (const ResultsFile& f : run.files) {
    std::map<std::string, std::string> seen;  // point key -> where it was first
    for (std::size_t i = 1; i < f.records.size(); ++i) {
      const RecordRef r{f.records[i], f.place(i)};
      const std::string kind_of_record = field_or<std::string>(r, "record", "");
      if (kind_of_record == "header") seen.clear();  // a resumed or merged segment measures its points again
      if (kind_of_record != "point") continue;
      if (field_or<std::string>(r, "gap.kind", "none") != "none") continue;  // cold sends: another question
      const std::string layout = field<std::string>(r, "layout");
      const auto bytes = field<std::uint64_t>(r, "size_bytes");
      if (bytes == 0) bad_field(r, "size_bytes", "a message size of 1 byte or more");
      if (const auto [it, fresh] = seen.emplace(point_key_text(r), r.place); !fresh)
        throw usage_error(std::string(r.place) + ": the point of " + it->second +
                          " again: the node model fits each point of a launch once");
      if (layout == "SSB") {
        if (find_field(r, "send_time_ns.round_medians") == nullptr) continue;
        in.idle.push_back({bytes, numbers(r, "send_time_ns.round_medians", kRoundTimeNs)});
        const Json eager = number_or_null(r, "mpi_path.eager_limit_bytes");
        if (eager.is_null()) continue;
        if (!eager.is_number_integer() || (!eager.is_number_unsigned() && eager.get<std::int64_t>() < 0))
          bad_field(r, "mpi_path.eager_limit_bytes", "bytes (a whole number) or null");
        const auto limit = eager.get<std::uint64_t>();
        if (in.eager_limit_bytes && *in.eager_limit_bytes != limit)
          throw usage_error(std::string(r.place) + ": an eager limit of " + std::to_string(limit) + " B, where " +
                            "other points of the run have " + std::to_string(*in.eager_limit_bytes) +
                            " B: the node model fits one MPI path");
        in.eager_limit_bytes = limit;
        continue;
      }
      const std::string kind = field_or<std::string>(r, "load_kind", "");
      if (layout == "PSB" || (kind != "write" && kind != "read")) continue;
      const Json traffic = number_or_null(r, "load.traffic_during_send_gbs");
      if (traffic.is_number() && !(traffic.get<double>() >= 0))
        bad_field(r, "load.traffic_during_send_gbs", "a traffic of 0 GB/s or more, or null");
      if (!traffic.is_number() || find_field(r, "ratio_to_ssb_rounds") == nullptr ||
          field_json(r, "ratio_to_ssb_rounds").is_null())
        continue;
      in.loaded.push_back({bytes, traffic.get<double>(), numbers(r, "ratio_to_ssb_rounds", kRatio)});
    }
  }
  return in;
}

}  // namespace hetprobe
