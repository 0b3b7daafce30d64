#include "divbench/model/kernels_inputs.hpp"

#include <algorithm>

#include "divbench/model/kernel_facts.hpp"
#include "divbench/model/slope_prediction.hpp"

namespace divbench::model {

// Why the inputs are not validated against the committed schemas (schemas/, draft 2020-12) first, which
// would name the file without reading nlohmann's message: no C++ validator on Debian 12 or in the
// toolchain implements 2020-12 (valijson 1.0 and pboettch/json-schema-validator: drafts 4-7; our schemas
// use $defs and 2020-12's keywords), and the Python validator (scripts/divbench/schemas.py) would add a
// Python start to every `kernels fit`. So the error names the document holding the failing key path.
std::string json_input_error(const std::vector<JsonInput>& inputs, const std::string& what) {
  // "[json.exception.type_error.302] (/summary/bodies/0/body) type must be string, but is number":
  // the library's prefix dropped, the key path (JSON_DIAGNOSTICS) and the message kept.
  std::string msg = what;
  if (msg.rfind("[json.exception.", 0) == 0 && msg.find("] ") != std::string::npos) msg = msg.substr(msg.find("] ") + 2);
  std::string pointer;  // "" (the document itself) when the message has no key path
  if (!msg.empty() && msg.front() == '(' && msg.find(") ") != std::string::npos) pointer = msg.substr(1, msg.find(") ") - 1);
  std::string type;  // the type the offending value has, where the message says it
  for (const std::string mark : {", but is ", " with "}) {
    const auto at = msg.rfind(mark);
    if (at != std::string::npos && type.empty()) {
      type = msg.substr(at + mark.size());
      if (type.find(' ') != std::string::npos) type.clear();
    }
  }
  std::vector<const JsonInput*> found;
  for (const auto& in : inputs) {
    if (!in.doc) continue;
    try {
      const json::json_pointer p(pointer);
      if (in.doc->contains(p) && (type.empty() || type == in.doc->at(p).type_name())) found.push_back(&in);
    } catch (const json::exception&) {  // a key path this document cannot have
    }
  }
  if (found.empty())
    for (const auto& in : inputs) found.push_back(&in);
  std::string names;
  const std::size_t shown = std::min<std::size_t>(found.size(), 3);
  for (std::size_t i = 0; i < shown; ++i)
    names += (i ? " or " : "") + found[i]->option + " " + found[i]->path;
  if (found.size() > shown) names += " (or one of " + std::to_string(found.size() - shown) + " more)";
  return names + ": " + msg;
}

CostFit fit_from_documents(const json& facts, const std::string& facts_path, const json* cost,
                           const std::string& cost_path, const std::vector<json>& kway,
                           const std::vector<std::string>& kway_paths) {
  std::vector<JsonInput> inputs{{"--facts", facts_path, &facts}};
  if (cost) inputs.push_back({"--cost", cost_path, cost});
  for (std::size_t i = 0; i < kway.size() && i < kway_paths.size(); ++i) inputs.push_back({"--kway", kway_paths[i], &kway[i]});
  const CostFit fit = with_json_inputs(inputs, [&] {
    if (!facts.is_object() || facts.value("schema", "") != model::kKernelFactsSchema)
      throw UsageError("--facts: " + facts_path + " is not a " + model::kKernelFactsSchema + " document");
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
  std::vector<JsonInput> inputs{{"--constants", constants_path, &constants}};
  for (std::size_t i = 0; i < facts.size() && i < facts_paths.size(); ++i) inputs.push_back({"--facts", facts_paths[i], &facts[i]});
  return with_json_inputs(inputs, [&] {
    Predictions p;
    p.documents = predict_slopes(facts, facts_paths, constants_from_json(constants, constants_path), constants_path, n);
    for (const auto& [arch, doc] : p.documents) p.summary += prediction_summary(doc);
    return p;
  });
}

}  // namespace divbench::model
