// The document stage of `divbench attribute` (attribute/document.hpp).
#include "divbench/attribute/document.hpp"

#include "divbench/model/memory_cost.hpp"

namespace divbench::attribute {

json kernels_document(const Outcome& out, const json& sampling, const json& nondeterministic) {
  json jk = json::array();
  for (std::size_t i = 0; i < out.kernels.size(); ++i) {
    const KernelAttribution& k = out.kernels[i];
    json j = to_json(k);
    j["nondeterministic"] = nondeterministic.contains(k.table->name) ? json{{"spread", nondeterministic[k.table->name]}}
                                                                       : json(nullptr);
    j["time_sampling"] = sampling.contains(k.table->name) ? sampling[k.table->name] : json(nullptr);
    j["time_model"] = i < out.times.size() ? to_json(out.times[i]) : json(nullptr);
    jk.push_back(std::move(j));
  }
  return jk;
}

json totals_document(const Outcome& out) {
  double total = 0;
  std::size_t divergent = 0;
  for (const auto& k : out.kernels) {
    total += k.cycles_lost;
    for (const auto& b : k.branches) divergent += b.divergent > 0;
  }
  return json{{"kernels", out.kernels.size()}, {"divergent_branches", divergent}, {"cycles_lost", total}};
}

json cost_model_document(const model::CostConstants& c, const std::string& used, bool measured_waits, int sm) {
  json cost_model{{"file", used},
                  {"fitted_on", "sm_" + std::to_string(c.sm)},
                  {"taken_branch_cycles", c.taken_branch ? json(*c.taken_branch) : json(nullptr)},
                  {"variable_latency_cycles", c.variable_latency ? json(*c.variable_latency) : json(nullptr)},
                  {"divergent_path_cycles", c.divergent_path ? json(*c.divergent_path) : json(nullptr)},
                  {"divergent_call_path_cycles", c.divergent_call_path ? json(*c.divergent_call_path) : json(nullptr)},
                  {"call_round_trip_cycles", c.call_round_trip ? json(*c.call_round_trip) : json(nullptr)},
                  {"call_path", c.divergent_call_path || c.call_round_trip
                                    ? "measured by the call-path calibration (from " + c.call_path_source.dump() +
                                          "): a CALL's pass costs its issue + call_round_trip_cycles, an indirect call's "
                                          "extra path divergent_call_path_cycles (a null one: divergent_path_cycles)"
                                    : std::string("not measured: an indirect call's extra path is priced at divergent_path_cycles")},
                  {"waits", measured_waits ? "measured: PC sampling of the same program (time per instruction), a sample "
                                       "standing for period x resident warps per SM warp-cycles"
                                     : "not measured: a wait on memory is a lower bound"},
                  {"memory_levels", c.memory_levels.empty() ? json(nullptr) : model::memory_levels_json(c.memory_levels)},
                  {"memory_rule", c.memory_levels.empty()
                                      ? "not measured (no memory_levels in the constants): a load's whole pass is lost per extra pass"
                                      : "a gather's pass (sectors column of the counts) costs more at more lanes as the "
                                        "memory probe measured: its ideal passes are priced at f(sectors at the ideal lanes) "
                                        "/ f(sectors now) x the measured pass (model/memory_cost.hpp; levels from " +
                                            c.memory_source.dump() + ")"},
                  {"summary", "issue cycles per instruction from the control words' stall fields, B per branch, W per "
                              "variable-latency wait (model/issue_cost.hpp)" +
                                  std::string(measured_waits ? ", waits on memory and other blocks' producers from PC sampling" : "") +
                                  "; constants from " + used}};
  if (c.sm != sm)
    cost_model["caveat"] = "constants fitted on sm_" + std::to_string(c.sm) + ", applied to sm_" + std::to_string(sm);
  cost_model["time_model"] =
      "time saved (predicted_time_saved_share/_s): SM time = max(issue bound, residency / resident warps), the "
      "residency split by PC sampling's stall reasons into issue, contention and wait; a divergence removed leaves "
      "its region's thread work in ideal passes (attribute/time_model.hpp, docs/attribute.md \"Time saved\")";
  return cost_model;
}

json pc_sampling_document(const PcSamples& pcs, const json& retried) {
  return json{{"period_cycles", pcs.period_cycles}, {"total_samples", pcs.total}, {"dropped_samples", pcs.dropped},
              {"hardware_buffer_full", pcs.hardware_buffer_full},
              {"hardware_buffer_mib", pcs.hardware_buffer_mib ? json(pcs.hardware_buffer_mib) : json(nullptr)},
              {"retried", retried}};
}

}  // namespace divbench::attribute
