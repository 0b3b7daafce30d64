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
  // A loop branch (StaticBranch::loop): the lanes that entered the loop, the ideal its region is priced
  // against (T / W summed over the loop's entry instructions), and the warp and thread entries.
  std::optional<double> active_entry;
  std::uint64_t entry_warps = 0, entry_threads = 0;
  // The lanes the region is priced against: active_entry for a loop, active_before otherwise, or a call
  // group's lanes (0 when the branch never ran).
  double ideal_lanes = 0;
  std::optional<double> active_inside;      // mean over the region's warp instructions
  std::optional<double> active_after;       // at the IPDom's first instruction
  std::uint64_t region_warp_instructions = 0;
  std::uint64_t region_thread_instructions = 0;
  std::optional<double> region_efficiency;  // thread / (32 * warp) instructions of the region
  double excess_warp_instructions = 0;
  double cycles_lost = 0;
  bool lower_bound = false;                 // the region waits on memory
  double memory_wait_cycles_lost = 0;       // the part of cycles_lost priced by measured memory waits
  // Extra paths this branch made: a two-way branch one per divergent execution; an indirect branch or
  // call the passes through the instruction after it beyond its executions.
  double extra_paths = 0;
  // The divergence proper beyond the instructions: D cycles (the cost sweep's b_divergence) per extra
  // path of this branch and of every branch inside its region; part of cycles_lost.
  double path_overhead_cycles = 0;
  // Several exits of one loop hold each other's regions: the loop's loss is counted once, at its
  // representative (a divergent exit with the largest region); the others point to it. So do the
  // indirect calls of one function (their region is every subroutine): counted at the first that
  // made an extra path.
  const BranchCost* counted_in = nullptr;
  // What was clamped: the sum of this branch's cost terms that came out below 0 (never written as a cost).
  double clamped_negative_cycles = 0;
  // Time saved if this divergence were removed (attribute/time_model.hpp; unset for a branch another one
  // counts, or one that made no extra path): share of the kernel's time, and seconds when measured.
  std::optional<double> time_saved_share, time_saved_s;
};

// One divergent loop of a kernel: its exit branches, entries and trips.
struct LoopCost {
  const BranchCost* representative = nullptr;
  std::vector<const BranchCost*> exits;     // every branch of the loop whose region holds the others
  std::uint64_t entry_warps = 0, entry_threads = 0;
  std::optional<double> trips_per_warp_entry;  // executions of the representative per warp entry
  std::optional<double> trips_per_lane;        // its thread executions per thread that entered
};

struct KernelAttribution {
  const FunctionBranches* table = nullptr;
  const FunctionCounts* counts = nullptr;
  std::uint64_t warps = 0;                  // warp executions of the first instruction (warps launched)
  std::uint64_t inst = 0, thread_inst = 0, divergent = 0;  // over every pc of the kernel
  // inst plus the replays of divergent indirect transfers (BRX, JMX, a CALL through a register): the
  // hardware issues such an instruction once per distinct target of a warp and its instruction counter
  // (ncu's smsp__inst_executed) counts each issue, where CUPTI's patched count is one per warp; the replays
  // are the divergent targets CUPTI counts at that pc (results/h200/attribute/programs.json).
  std::uint64_t inst_issued = 0;
  std::vector<BranchCost> branches;         // every branch of the table, in pc order
  std::vector<LoopCost> loops;              // loop branches grouped by loop (pc order of representatives)
  double cycles_lost = 0;                   // sum over branches that no other counted branch holds
  double modelled_warp_cycles = 0;          // sum over every pc of W_i * cycles(i): the kernel's issue time
  std::uint64_t calls_executed = 0;         // warp passes of its CALL instructions (direct and indirect)
  // Time saved with every divergence of the kernel removed (attribute/time_model.hpp), the resident warps
  // per SM it was predicted at; unset before the time model ran.
  std::optional<double> time_saved_share, time_saved_s, resident_warps_per_sm;
};

// The words a report gives for what would recover a branch's loss (a loop: the trip-count spread
// within warps; a short if/else: predication; an indirect branch: grouping by case; otherwise
// grouping work so that a warp's lanes take the same side), from the counts alone.
std::string recovery_hint(const BranchCost& c, const LoopCost* loop);
// The loop `b` is an exit of, or nullptr.
const LoopCost* loop_of(const KernelAttribution& k, const BranchCost& b);

// `ideal_lanes`: the lanes the region is priced against, instead of the branch's own (a group of
// indirect calls sharing one region: the lanes of all of them).
BranchCost cost_branch(const StaticBranch& b, const FunctionCounts& counts, const sass::Function& f,
                       const std::vector<model::IssueCost>& costs, std::optional<double> ideal_lanes = std::nullopt);
// `divergent_path`: D, cycles per extra path (model::CostConstants::divergent_path); none: not priced.
// `divergent_call_path`: the same for an extra path of an indirect call (CostConstants::divergent_call_path,
// measured by the call-path calibration); none: an indirect call's extra path is priced at D.
KernelAttribution attribute_kernel(const FunctionBranches& table, const FunctionCounts& counts, const sass::Function& f,
                                   const std::vector<model::IssueCost>& costs,
                                   std::optional<double> divergent_path = std::nullopt,
                                   std::optional<double> divergent_call_path = std::nullopt);

json to_json(const BranchCost& c);
json to_json(const KernelAttribution& k);

}  // namespace divbench::attribute
