#include "bench/model/model_document.hpp"

#include "base/errors.hpp"
#include "bench/model/halo_prediction.hpp"
#include "bench/model/model_inputs.hpp"

namespace hetprobe {

Json node_model_json(const std::string& run_path, const std::string& halo_path, Report* report) {
  const NodeRun run = read_node_run(run_path);
  const FitInputs inputs = fit_inputs(run);
  const NodeModel model = fit_node_model(inputs.idle, inputs.loaded, inputs.eager_limit_bytes);
  Json fitted_from = Json::array();
  for (const ResultsFile& f : run.files) fitted_from.push_back(f.path.string());
  Json sources{{"fit", fitted_from}, {"node", run.node}, {"halo", halo_path.empty() ? Json() : Json(halo_path)}};
  std::vector<HaloPrediction> predictions;
  if (!halo_path.empty()) {
    const ResultsFile halo = read_results(halo_path);
    if (halo.records.empty() || halo.probe() != "halo") throw usage_error(halo_path + " is not a halo results file");
    const Json node = node_of(halo.records.front());
    if (node != run.node)
      throw usage_error(halo_path + " was measured on " + node.dump() + ", the model was fitted on " + run.node.dump() +
                        ": a node's model predicts that node's runs only");
    predictions = predict_halo(model, halo);
  }
  Json out{{"sources", sources}, {"fit", to_json(model)}, {"predictions", Json::array()}};
  for (const HaloPrediction& p : predictions) out["predictions"].push_back(to_json(p));
  if (report != nullptr) *report = model_report(model, sources, predictions);
  return out;
}

}  // namespace hetprobe
