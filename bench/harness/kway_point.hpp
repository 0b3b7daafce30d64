// One point of any k-way-kernel experiment: timed launches, output verification, summary.
#pragma once
#include <functional>
#include <vector>

#include "divbench/core/lane_map.hpp"
#include "divbench/cuda/launch.hpp"
#include "divbench/kernels/kway.hpp"
#include "experiment.hpp"

namespace divbench {

struct KwayPointSpec {
  Body body = Body::fma_chain;
  int k = 1;
  LaneAssignment lanes;
  int blocks = 1;
  int threads_per_block = 32;
  LaunchPlan plan;
  std::vector<float> table;  // host copy of the divergent-memory body's table (empty otherwise)
};

KwayParams make_kway_params(const KwayPointSpec& s);

// Runs plan.warmup + plan.reps launches, checks every thread's output against the host reference
// (VerificationError on a mismatch) and reduces the per-warp samples to a TimedPoint.
PointResult run_kway_point(const KwayPointSpec& s);

// One untimed launch of the same kernel and configuration (for the counters).
std::function<void()> kway_launch_once(const KwayPointSpec& s);

// The same launch with every path's iteration count set to zero: the zero-work twin whose counters
// are subtracted to isolate the divergent region.
std::function<void()> kway_launch_twin(const KwayPointSpec& s);

}  // namespace divbench
