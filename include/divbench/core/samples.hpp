// From raw per-launch region samples to a TimedPoint: the statistics, the effective clock and the
// throttling check. Host-only, so the logic is tested without a GPU.
#pragma once
#include <vector>

#include "divbench/core/result.hpp"
#include "divbench/cuda/region_sample.hpp"

namespace divbench {

struct ThrottleRule {
  double max_spread = 0.02;        // relative spread of the per-launch clock that flags a point
  double timer_quantum_ns = 1000;  // worst-case %globaltimer granularity assumed
};

// samples: reps * per_launch, launch-major. Each launch is reduced to the median of its warps'
// cycles (one warp: that warp). Statistics are over launches.
TimedPoint to_timed_point(const std::vector<RegionSample>& samples, int reps, std::size_t per_launch, double k,
                          double wall_ms, ThrottleRule rule = {});

// Record the SM clock measured right before and right after the point's launches; a change of
// more than rule.max_spread between them also flags the point as throttled.
void apply_clock_bracket(TimedPoint& p, double before_mhz, double after_mhz, ThrottleRule rule = {});

}  // namespace divbench
