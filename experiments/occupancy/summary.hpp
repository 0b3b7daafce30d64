// The occupancy sweep's summary from its points. Host-only; tested on synthetic points.
//
// Every point is one launch shape at one k: extra {residency: {series, warps_per_sm, waves,
// total_warps, sms_used, every_sm_at_target, achieved_occupancy, ...}, kernel_ms: {median, ...}
// (CUDA events around each whole launch), launch_overhead_ms: {median, ...} (an empty kernel
// launched with the same shape, in the same point)}, its cycles the per-launch median over warps of
// the clock64 region and clock_mhz the SM clock over them.
//
// Each point gets (written into its extra):
//   kernel_ms_corrected  {median: kernel_ms.median - launch_overhead_ms.median}: the kernel's work
//                        (null, with why_not_corrected, when not above the overhead);
//   region_median_ms     the median region time of a warp;
//   region_share         region_median_ms x waves / corrected kernel time: how much of the kernel a
//                        warp's region covers (1 when every warp runs from start to end);
//   steady_state         region_share >= min_share. Otherwise the warps did not all run side by
//                        side for the whole kernel (some started late or finished early), and a
//                        warp's region time is not the steady-state time at that residency.
// Each shape's k = K point over its k = 1 point gives one entry of the series (the shape
// docs/figures.md gives for Figure 3). Summary keys:
//   penalty_min, penalty_max            the penalty from the corrected kernel times (the result);
//   kernel_penalty_raw_min/_max         the same from the raw event times (launch overhead in both);
//   penalty_bounded_min/_max            the penalty with at most the fixed cost the shape's own two
//                                       event times imply subtracted: c_hat = (K T(1) - T(K)) / (K - 1),
//                                       the intercept of kernel time against k, and min(empty kernel,
//                                       c_hat) subtracted from both; never above K (penalty is, where
//                                       the empty kernel exceeds c_hat: it over-corrects). Over the
//                                       shapes where the correction is informative only: where the
//                                       empty kernel exceeds c_hat it would be K by construction, so
//                                       the shape's penalty_bounded is null (correction_informative
//                                       false, why_uninformative), never K;
//   shapes_empty_kernel_exceeds_fixed_cost  how many shapes that is (no bounded penalty);
//   region_penalty_min/_max             per-warp region penalty over every shape;
//   region_penalty_steady_min/_max      ... over the shapes whose two points are steady (null if none);
//   steady_state_test                   the test, with min_share;
//   launch_overhead_ms                  median of the points' empty-kernel medians (_min, _max beside);
//   series[]                            {series, warps_per_sm, waves, warps_per_sm_launched,
//                                       total_warps, k, penalty, kernel_penalty_raw, region_penalty,
//                                       steady_state, region_share_k1, region_share_k,
//                                       kernel_ms_corrected_k1, kernel_ms_corrected_k, penalty_bounded
//                                       (null where uninformative), correction_informative,
//                                       why_uninformative, fixed_cost_ms, fixed_cost_subtracted_ms,
//                                       empty_kernel_exceeds_fixed_cost,
//                                       launch_overhead_ms_k1, launch_overhead_ms_k,
//                                       achieved_occupancy, sms_used, every_sm_at_target};
//   shapes_without_penalty[]            shapes left out of the series (no corrected time), with why.
#pragma once
#include "divbench/core/result.hpp"

namespace divbench {

void add_occupancy_summary(ResultRecord& r, double min_share);

}  // namespace divbench
