// Cycles lost to divergence, per branch: the static branch table (branches.hpp) joined with the
// per-instruction counts of a run (counts.hpp) and priced with the issue-cost model
// (model/issue_cost.hpp). docs/attribute.md gives the definitions; in short, for a branch with
// E warp executions, D of them divergent, A = its thread count / E active lanes on arrival, and a
// region R (instructions its paths run before the IPDom) with warp counts W_i and thread counts T_i:
//   excess warp instructions   sum over R of (W_i - T_i / A): the passes a warp made through the
//                              region beyond those needed had its A lanes run together
//   estimated cycles lost      sum over R of (W_i - T_i / A) * cycles(i)
// A region that waits on memory makes the estimate a lower bound (`lower_bound` true).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "divbench/attribute/branches.hpp"
#include "divbench/attribute/counts.hpp"
#include "divbench/model/issue_cost.hpp"

namespace divbench::attribute {

struct BranchCost {
  const StaticBranch* branch = nullptr;
  std::uint64_t executions = 0;             // warp executions of the branch
  std::uint64_t divergent = 0;              // ... with active threads on both sides
  std::uint64_t uniform = 0;
  std::optional<double> paths_mean;         // per execution (2-way branches: 1 + D/E); nullopt for BRX/JMX
  double active_before = 0;                 // mean active lanes at the branch
  std::optional<double> active_inside;      // mean over the region's warp instructions
  std::optional<double> active_after;       // at the IPDom's first instruction
  std::uint64_t region_warp_instructions = 0;
  std::uint64_t region_thread_instructions = 0;
  std::optional<double> region_efficiency;  // thread / (32 * warp) instructions of the region
  double excess_warp_instructions = 0;
  double cycles_lost = 0;
  bool lower_bound = false;                 // the region waits on memory
};

struct KernelAttribution {
  const FunctionBranches* table = nullptr;
  const FunctionCounts* counts = nullptr;
  std::uint64_t warps = 0;                  // warp executions of the first instruction (warps launched)
  std::uint64_t inst = 0, thread_inst = 0, divergent = 0;  // over every pc of the kernel
  std::vector<BranchCost> branches;         // every branch of the table, in pc order
  double cycles_lost = 0;                   // sum over branches that no other counted branch holds
};

BranchCost cost_branch(const StaticBranch& b, const FunctionCounts& counts, const sass::Function& f,
                       const std::vector<model::IssueCost>& costs);
KernelAttribution attribute_kernel(const FunctionBranches& table, const FunctionCounts& counts, const sass::Function& f,
                                   const std::vector<model::IssueCost>& costs);

json to_json(const BranchCost& c);
json to_json(const KernelAttribution& k);

}  // namespace divbench::attribute
