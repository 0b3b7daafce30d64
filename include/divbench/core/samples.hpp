// From raw region samples to a TimedPoint: the statistics, the effective clock, the throttling
// check and the raw samples kept for later comparison. Host-only, so the logic is tested without
// a GPU.
#pragma once
#include <vector>

#include "divbench/core/result.hpp"
#include "divbench/cuda/region_sample.hpp"

namespace divbench {

struct ThrottleRule {
  double max_spread = 0.02;        // relative spread of the per-sample clock that flags a point
  double timer_quantum_ns = 1000;  // worst-case %globaltimer granularity assumed
};

// What one statistic is taken over:
//   each_sample   every sample is one warp's region, an independent measurement (single and
//                 warp-per-sm sampling): statistics over all samples;
//   launch_median each launch is reduced to the median of its warps first (many warps sharing SMs,
//                 the occupancy sweep): statistics over launches.
enum class Reduction { each_sample, launch_median };

// samples: launches * per_launch, launch-major.
TimedPoint to_timed_point(const std::vector<RegionSample>& samples, int launches, std::size_t per_launch, double k,
                          double wall_ms, Reduction reduction = Reduction::each_sample, ThrottleRule rule = {});

// Record the SM clock measured right before and right after the point's launches; a change of
// more than rule.max_spread between them also flags the point as throttled.
void apply_clock_bracket(TimedPoint& p, double before_mhz, double after_mhz, ThrottleRule rule = {});

// Each launch's warps on distinct SMs? Returns the number of launches where two warps shared an SM.
std::size_t launches_with_shared_sm(const std::vector<RegionSample>& samples, int launches, std::size_t per_launch);

}  // namespace divbench
