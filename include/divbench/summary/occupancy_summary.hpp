// The occupancy sweep's summary from its points. Host-only; tested on synthetic points.
//
// Every point is one launch shape at one k: extra {residency: {series, warps_per_sm, waves,
// total_warps, sms_used, every_sm_at_target, achieved_occupancy, ...}, kernel_ms: {median, ...}
// (CUDA events around each whole launch), launch_overhead_ms: {median, ...} (an empty kernel
// launched with the same shape, in the same point)}, its cycles the per-launch median over warps of
// the clock64 region and clock_mhz the SM clock over them.
//
// Each point gets (written into its extra):
//   kernel_ms_corrected  kernel_ms.median - launch_overhead_ms.median: the kernel's work;
//   region_share         median region time x waves / kernel_ms_corrected: how much of the kernel
//                        a warp's region covers (1 when every warp runs from start to end);
//   steady_state         region_share >= min_share. Otherwise the warps did not all run side by
//                        side for the whole kernel (some started late or finished early), and a
//                        warp's region time is not the steady-state time at that residency.
// Pairs: each shape's k = K point over its k = 1 point. Summary keys:
//   penalty_min, penalty_max            kernel penalty from the corrected kernel times (the result);
//   penalty_uncorrected_min/_max        the same from the raw event times (launch overhead in both);
//   region_penalty_min/_max             per-warp region penalty over every pair;
//   region_penalty_steady_min/_max      ... over the pairs whose two points are steady (null if none);
//   steady_state_test                   the test, with min_share;
//   launch_overhead_ms                  {median, min, max} of the points' empty-kernel medians;
//   pairs[]                             the series: {series, target, warps_per_sm, waves,
//                                       warps_per_sm_launched, total_warps, k, kernel_penalty,
//                                       kernel_penalty_uncorrected, region_penalty,
//                                       region_steady_state, region_share_k1, region_share_k,
//                                       kernel_ms_corrected_k1, kernel_ms_corrected_k,
//                                       launch_overhead_ms_k1, launch_overhead_ms_k,
//                                       achieved_occupancy, sms_used, every_sm_at_target}.
#pragma once
#include "divbench/core/result.hpp"

namespace divbench {

void add_occupancy_summary(ResultRecord& r, double min_share);

}  // namespace divbench
