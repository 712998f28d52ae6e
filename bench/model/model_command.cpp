// `hetprobe model RUN [--halo FILE]`: the node model fitted from a
// characterize run's interference series (node_model.hpp), its parameters
// with their intervals, and, given a halo run of the same node, its
// prediction of each setup's communication time against the measured one
// (halo_prediction.hpp). --format table|csv|json|markdown; json is one
// document: {"sources", "fit", "predictions"}.
#include <cstdio>
#include <memory>
#include <optional>

#include "base/errors.hpp"
#include "bench/cli/command.hpp"
#include "bench/cli/option_checks.hpp"
#include "bench/model/model_document.hpp"

namespace hetprobe {

namespace cli {

namespace {

struct Options {
  std::string run, halo;
  std::optional<std::string> format;
};

int run(const Options& o) {
  const TableFormat format = parse_enum("--format", o.format ? *o.format : "table", kTableFormatNames);
  Report report;
  const Json doc = node_model_json(o.run, o.halo, &report);
  if (format == TableFormat::json) {
    std::printf("%s\n", doc.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
    return 0;
  }
  if (format == TableFormat::csv && report.tables.size() > 1)
    throw usage_error("--format csv holds one table: this model has " + std::to_string(report.tables.size()) +
                      " (model_fit, model_prediction); use json or markdown");
  print_report(stdout, format, report);
  return 0;
}

}  // namespace

CommandFn add_model_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* c = app.add_subcommand(
      "model",
      "The node model: the MPI path's latency alpha and inverse bandwidth beta, and its slowdown per GB/s of GPU "
      "traffic, fitted from a characterize run's interference series with 95% intervals over its rounds; with "
      "--halo, its prediction of each halo setup's communication time against the measured one");
  c->add_option("run", o->run, "A `hetprobe characterize` run directory, or an interference results file")->required();
  c->add_option("--halo", o->halo,
                "A halo results file of the same node (two ranks, --timeline all) whose communication to predict");
  c->add_option("--format", o->format, "table (the default), csv (one table), json (one document), markdown");
  return [o](const std::vector<std::string>&) { return run(*o); };
}

}  // namespace cli

}  // namespace hetprobe
