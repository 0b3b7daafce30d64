#include "divbench/model/kernels_inputs.hpp"

#include "divbench/sass/kernel_facts.hpp"
#include "divbench/model/slope_prediction.hpp"

namespace divbench::model {

CostFit fit_from_documents(const json& facts, const std::string& facts_path, const json* cost,
                           const std::string& cost_path, const std::vector<json>& kway,
                           const std::vector<std::string>& kway_paths) {
  const CostFit fit = with_json_inputs("--facts/--cost/--kway", [&] {
    if (!facts.is_object() || facts.value("schema", "") != sass::kKernelFactsSchema)
      throw UsageError("--facts: " + facts_path + " is not a " + sass::kKernelFactsSchema + " document");
    if (cost) return fit_from_cost_result(*cost, cost_path, facts, facts_path);
    return fit_from_kway_results(kway, kway_paths, facts, facts_path);
  });
  if (!fit.constants.taken_branch)  // a document of null constants would pass for a fit
    throw UsageError(std::string(cost ? "--cost " + cost_path : "--kway") +
                     ": no body whose a can be fitted (none measured, or every one waits on memory): nothing to write");
  return fit;
}

Predictions predict_from_documents(const json& constants, const std::string& constants_path,
                                   const std::vector<json>& facts, const std::vector<std::string>& facts_paths,
                                   std::uint32_t n) {
  return with_json_inputs("--facts/--constants", [&] {
    Predictions p;
    p.documents = predict_slopes(facts, facts_paths, constants_from_json(constants, constants_path), constants_path, n);
    for (const auto& [arch, doc] : p.documents) p.summary += prediction_summary(doc);
    return p;
  });
}

}  // namespace divbench::model
