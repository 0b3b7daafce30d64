// The metrics --metrics reads, and region-only values: the counters cover a whole kernel (prologue,
// clock reads, epilogue), so the divergent region alone is isolated by subtracting a zero-work twin of
// the same launch:
//   region_ratio        = (thread_inst(full) - thread_inst(twin)) / (inst(full) - inst(twin))
//                         which approaches 32/k when the region runs k equal paths;
//   region_pred_on_ratio = the same with the thread instructions whose guard predicate was true, so a
//                         predicated form that keeps all 32 lanes active shows the lanes doing work;
//   region_branch_uniform_pct = 100 * uniform(full - twin) / branch_targets(full - twin).
#pragma once
#include <map>
#include <optional>
#include <string>

#include "divbench/core/json_io.hpp"

namespace divbench {

// Active threads per executed warp instruction, and the two sums it is made of (required).
inline constexpr const char* kMetricRatio = "smsp__thread_inst_executed_per_inst_executed.ratio";
inline constexpr const char* kMetricInst = "smsp__inst_executed.sum";
inline constexpr const char* kMetricThreadInst = "smsp__thread_inst_executed.sum";
// Threads whose guard predicate was true per executed warp instruction (predication-aware), and its sum.
inline constexpr const char* kMetricPredOnRatio = "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio";
inline constexpr const char* kMetricThreadInstPredOn = "smsp__thread_inst_executed_pred_on.sum";
// Branch uniformity: the share of branch targets where all active threads took the same target, and
// the two sums it is made of.
inline constexpr const char* kMetricBranchUniformPct = "smsp__sass_average_branch_targets_threads_uniform.pct";
inline constexpr const char* kMetricBranchTargets = "smsp__sass_branch_targets.sum";
inline constexpr const char* kMetricBranchTargetsUniform = "smsp__sass_branch_targets_threads_uniform.sum";

using MetricValues = std::map<std::string, double>;

struct RegionEfficiency {
  double inst = 0;         // warp instructions of the region (full - twin)
  double thread_inst = 0;  // thread instructions of the region (full - twin)
  std::optional<double> ratio;  // thread_inst / inst; empty when the difference is not usable
  std::string why;              // reason when ratio is empty
  // Where both launches measured the predicated-on sum (else empty):
  std::optional<double> thread_inst_pred_on;  // full - twin
  std::optional<double> pred_on_ratio;        // thread_inst_pred_on / inst, when usable
  // Where both launches measured the branch-target sums (else empty):
  std::optional<double> branch_targets;          // full - twin
  std::optional<double> branch_targets_uniform;  // full - twin
  std::optional<double> branch_uniform_pct;      // 100 * uniform / targets, when usable
};

// Needs kMetricInst and kMetricThreadInst in both maps (std::invalid_argument otherwise). No ratio when
// the twin executed as many instructions as the full launch or more, or a difference is negative.
RegionEfficiency region_efficiency(const MetricValues& full, const MetricValues& twin);

// {"inst", "thread_inst", "ratio" (or null and "why")}, plus "thread_inst_pred_on", "pred_on_ratio",
// "branch_targets", "branch_targets_threads_uniform", "branch_uniform_pct" where measured (null where
// the difference is not usable).
json to_json(const RegionEfficiency& r);

}  // namespace divbench
