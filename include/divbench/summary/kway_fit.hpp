// The k-way fit summary shared by every experiment whose points are T(k) at one or more code
// placements (extra "placement"): T(k) = s*k + c fitted per placement (fit.placements[]), s reported
// as the median over placements with its min, max and relative spread, and the top-level fit taken
// over the per-k medians across placements. Host-only; tested on synthetic points.
#pragma once
#include "divbench/core/result.hpp"

namespace divbench {

// Sorts r.points by (placement, k). Summary keys: ratio_<kmax>_over_<kmin>, fitted_ratio_..,
// s_cycles_per_path (median over placements), c_cycles, c_over_s, r2, superlinear,
// layout_placements, s_layout_min, s_layout_max, s_layout_spread_rel. Needs >= 2 values of k.
void add_kway_fit_summary(ResultRecord& r);

// Placement of a point (extra "placement", 0 when absent).
int placement_of(const TimedPoint& p);

}  // namespace divbench
