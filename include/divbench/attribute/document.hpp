// The document stage of `divbench attribute` (attribute::run's last stage): the parts of the
// "divbench.attribute/1" document that come from the priced kernels and the model, apart from the record of
// the program's runs (run.cpp). The report (report.hpp) and the source view (html.hpp) read the same
// attribution.
#pragma once
#include <string>

#include "divbench/attribute/pcsamples.hpp"
#include "divbench/attribute/run.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/model/loop_cost.hpp"

namespace divbench::attribute {

// "kernels": each kernel's attribution (to_json), with its repeat spread (`nondeterministic`: name ->
// spread), what the sampling priced (`sampling`: name -> object) and its time model.
json kernels_document(const Outcome& out, const json& sampling, const json& nondeterministic);
// "totals": kernels, divergent branches, warp-cycles lost (each divergent branch once).
json totals_document(const Outcome& out);
// "cost_model": the constants in use (from `used`), how waits and calls were priced, and the time model;
// `sm` the kernels' architecture (a caveat when the constants were fitted on another).
json cost_model_document(const model::CostConstants& c, const std::string& used, bool measured_waits, int sm);
// "collection.pc_sampling": the sampling run's period, samples and losses.
json pc_sampling_document(const PcSamples& pcs, const json& retried);

}  // namespace divbench::attribute
