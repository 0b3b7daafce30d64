// Joining the branch table with the counts and pricing each region (attribute/attribution.hpp).
#include "divbench/attribute/attribution.hpp"

#include <algorithm>

namespace divbench::attribute {

namespace {

const PcCounts kZero{};

const PcCounts& counts_at(const FunctionCounts& c, const sass::Function& f, std::size_t i) {
  const PcCounts* p = c.at(f.instructions[i].offset - f.start);
  return p ? *p : kZero;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

BranchCost cost_branch(const StaticBranch& b, const FunctionCounts& counts, const sass::Function& f,
                       const std::vector<model::IssueCost>& costs) {
  BranchCost r;
  r.branch = &b;
  const PcCounts& at = counts_at(counts, f, b.index);
  r.executions = at.inst;
  r.divergent = at.divergent;
  r.uniform = at.uniform;
  if (r.executions == 0) return r;
  r.active_before = double(at.thread_inst) / double(at.inst);
  if (!b.indirect) r.paths_mean = 1.0 + double(r.divergent) / double(r.executions);
  for (std::size_t i : b.region) {
    const PcCounts& c = counts_at(counts, f, i);
    r.region_warp_instructions += c.inst;
    r.region_thread_instructions += c.thread_inst;
    if (c.inst == 0) continue;
    const double excess = double(c.inst) - double(c.thread_inst) / r.active_before;
    r.excess_warp_instructions += excess;
    r.cycles_lost += excess * costs[i].cycles;
    if (costs[i].memory_wait) r.lower_bound = true;
  }
  if (r.region_warp_instructions) {
    r.active_inside = double(r.region_thread_instructions) / double(r.region_warp_instructions);
    r.region_efficiency = *r.active_inside / 32.0;
  }
  if (b.ipdom_index) {
    const PcCounts& c = counts_at(counts, f, *b.ipdom_index);
    if (c.inst) r.active_after = double(c.thread_inst) / double(c.inst);
  }
  return r;
}

KernelAttribution attribute_kernel(const FunctionBranches& table, const FunctionCounts& counts, const sass::Function& f,
                                   const std::vector<model::IssueCost>& costs) {
  KernelAttribution k;
  k.table = &table;
  k.counts = &counts;
  if (const PcCounts* first = counts.at(0)) k.warps = first->inst;
  for (const auto& [pc, c] : counts.pcs) {
    k.inst += c.inst;
    k.thread_inst += c.thread_inst;
    k.divergent += c.divergent;
  }
  for (const auto& b : table.branches) k.branches.push_back(cost_branch(b, counts, f, costs));
  // The kernel's total counts each divergent branch once: one that a divergent branch's region holds
  // (and that does not hold it back, as two branches of one loop do) is already inside that region.
  for (const auto& c : k.branches) {
    if (c.divergent == 0) continue;
    bool inside = false;
    for (const auto& o : k.branches) {
      if (&o != &c && o.divergent != 0 && region_holds(*o.branch, *c.branch)) inside = true;
    }
    if (!inside) k.cycles_lost += c.cycles_lost;
  }
  return k;
}

json to_json(const BranchCost& c) {
  json j = to_json(*c.branch);
  j["executions"] = c.executions;
  j["divergent_executions"] = c.divergent;
  j["uniform_executions"] = c.uniform;
  // Paths per execution of a two-way branch: 1 (uniform) or 2 (divergent) — exact from the counts.
  if (c.paths_mean)
    j["paths_per_execution"] = json{{"1", c.executions - c.divergent}, {"2", c.divergent}, {"mean", *c.paths_mean}};
  else
    j["paths_per_execution"] = nullptr;
  j["active_lanes"] = json{{"before", c.executions ? json(c.active_before) : json(nullptr)},
                           {"inside", opt(c.active_inside)},
                           {"after", opt(c.active_after)}};
  j["region_warp_instructions"] = c.region_warp_instructions;
  j["region_thread_instructions"] = c.region_thread_instructions;
  j["region_thread_instruction_efficiency"] = opt(c.region_efficiency);
  j["excess_warp_instructions"] = c.excess_warp_instructions;
  j["cycles_lost"] = c.cycles_lost;
  j["cycles_lost_is_lower_bound"] = c.lower_bound;
  return j;
}

json to_json(const KernelAttribution& k) {
  json br = json::array();
  for (const auto& c : k.branches) br.push_back(to_json(c));
  return json{{"name", k.table->name},
              {"arch", "sm_" + std::to_string(k.table->sm)},
              {"warps", k.warps},
              {"inst_executed", k.inst},
              {"thread_inst_executed", k.thread_inst},
              {"thread_inst_per_inst", k.inst ? json(double(k.thread_inst) / double(k.inst)) : json(nullptr)},
              {"branch_targets_threads_divergent", k.divergent},
              {"cycles_lost", k.cycles_lost},
              {"cycles_lost_per_warp", k.warps ? json(k.cycles_lost / double(k.warps)) : json(nullptr)},
              {"branches", br}};
}

}  // namespace divbench::attribute
