#include "bench/model/model_inputs.hpp"

#include <sys/stat.h>

#include <cmath>

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

std::vector<double> numbers(const RecordRef& r, const std::string& path) {
  std::vector<double> out;
  const Json& v = field_json(r, path);
  if (!v.is_array()) bad_field(r, path, "an array of numbers or nulls");
  for (const Json& x : v) out.push_back(x.is_number() ? x.get<double>() : std::nan(""));
  return out;
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
    run.files.push_back(std::move(f));
  }
  return run;
}

FitInputs fit_inputs(const NodeRun& run) {
  FitInputs in;
  for (const ResultsFile& f : run.files)
    for (std::size_t i = 1; i < f.records.size(); ++i) {
      const RecordRef r{f.records[i], f.place(i)};
      if (field_or<std::string>(r, "record", "") != "point") continue;
      if (field_or<std::string>(r, "gap.kind", "none") != "none") continue;  // cold sends: another question
      const std::string layout = field<std::string>(r, "layout");
      const auto bytes = field<std::uint64_t>(r, "size_bytes");
      if (layout == "SSB") {
        if (find_field(r, "send_time_ns.round_medians") == nullptr) continue;
        in.idle.push_back({bytes, numbers(r, "send_time_ns.round_medians")});
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
      if (!traffic.is_number() || find_field(r, "ratio_to_ssb_rounds") == nullptr ||
          field_json(r, "ratio_to_ssb_rounds").is_null())
        continue;
      in.loaded.push_back({bytes, traffic.get<double>(), numbers(r, "ratio_to_ssb_rounds")});
    }
  return in;
}

}  // namespace hetprobe
