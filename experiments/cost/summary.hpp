// The cost decomposition T(k, n) = k * (a*n + b) + c: a is the body's cost per loop iteration, b what
// a path costs besides its body (the loop over paths, the branch, BSSY/BSYNC, the parameter loads,
// __syncwarp: all that runs with n = 0), c the fixed cost of the region. b is split by the
// no-divergence control (the same loop over k paths with every lane on every path,
// kway_control_kernel): its own b is b_loop, the loop over paths, and b - b_loop is b_divergence,
// what the divergent kernel pays per path beyond it; a control kernel run reading the parameters the
// way the divergent kernel does and reading one slot (kway_control_slots_kernel) splits that into
// parameter reads and the divergent branch. Fitted by least squares over the columns k*n, k
// and 1 for each code placement; reported as the median over placements with min and max.
// Host-only; tested on synthetic points.
#pragma once
#include <optional>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench {

struct CostSample {
  double k = 0, n = 0, cycles = 0;
};

struct CostFit {
  double a = 0, b = 0, c = 0;
  double a_se = 0, b_se = 0, c_se = 0;  // standard errors
  double r2 = 0;
  double max_rel_residual = 0;
  double b_direct = 0;   // T(k, 0) = k*b + c fitted on the n = 0 points alone (NaN without >= 2 of them)
  std::size_t n_points = 0;
};

// std::invalid_argument when the points cannot separate a, b and c (fewer than two n values or two k).
CostFit fit_cost(const std::vector<CostSample>& samples);

json to_json(const CostFit& f);

// A fit is linear in n when its largest relative residual is at most kCostLinearMaxRelResidual and b
// is positive: the compute bodies' fits stay below 0.13 on the H200, mem_divergent's (whose time per
// iteration grows with n as its table misses more) reach 54 with b < 0. Where a fit is not linear, a,
// b and c mean nothing and are not published.
inline constexpr double kCostLinearMaxRelResidual = 0.25;
bool cost_fit_linear(const CostFit& f);

// One placement of one body: the divergent kernel's fit, the control's when it ran, and, when both
// runs of the slot control ran, their slopes in k at n = 0 (kway_control_slots_kernel reading slot q
// at step q, and the same kernel reading slot 0 throughout).
struct PlacementCost {
  int placement = 0;
  CostFit divergent;
  std::optional<CostFit> control;
  std::optional<double> slot_q_slope, slot_0_slope;
};

// The slope in k of T(k) over points (k, cycles): nullopt with fewer than two k.
std::optional<double> slope_in_k(const std::vector<std::pair<double, double>>& points);

// A body's summary over its placements (the cost sweep's summary.bodies[] less the body's name and
// prediction): a, b, c, r2 (spread: median, _min, _max), a_se, b_direct; b_cycles_per_path,
// b_loop_cycles_per_path (the control's b) and b_divergence_cycles_per_path (b - b_loop at the same
// placement), each with _min, _max over placements and _se (the median over placements of the
// standard error; for b_divergence sqrt(se_b^2 + se_b_loop^2)); linear_in_n and, where false, the
// reason in not_linear with a, b, c and the b split null; placements[] the per-placement fits.
// Where the slot control ran at every placement, b_divergence is split by what it shows:
// b_param_reads_cycles_per_path (its slope reading slot q at step q minus the same code's reading
// slot 0, n = 0: what reading a new parameter slot per path costs, with no divergence) and
// b_branch_cycles_per_path (b_divergence - b_param_reads: what the divergent kernel pays per path
// beyond the control and those reads: the divergent branch itself); the parts add up to b_divergence
// at each placement. _se: the standard error of b_divergence for b_branch, null for b_param_reads
// (a difference of two slopes over the same k, read from medians).
json cost_body_json(const std::vector<PlacementCost>& fits);

// {"<key>": median over fits, "<key>_min": min, "<key>_max": max} for a, b, c, r2 of `fits`, under
// the names given (e.g. "a_cycles_per_iter").
json cost_spread_json(const std::vector<CostFit>& fits, const char* a_key, const char* b_key, const char* c_key,
                      const char* r2_key);

}  // namespace divbench
