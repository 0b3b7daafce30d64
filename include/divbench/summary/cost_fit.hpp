// The cost decomposition T(k, n) = k * (a*n + b) + c: a is the body's cost per loop iteration, b what
// divergence itself costs per path (the branch, BSSY/BSYNC, __syncwarp, the loop over paths: all that
// runs with n = 0), c the fixed cost of the region. Fitted by least squares over the columns k*n, k
// and 1 for each code placement; reported as the median over placements with min and max.
// Host-only; tested on synthetic points.
#pragma once
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

// {"<key>": median over fits, "<key>_min": min, "<key>_max": max} for a, b, c, r2 of `fits`, under
// the names given (e.g. "a_cycles_per_iter").
json cost_spread_json(const std::vector<CostFit>& fits, const char* a_key, const char* b_key, const char* c_key,
                      const char* r2_key);

}  // namespace divbench
