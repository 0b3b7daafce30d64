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
  std::vector<float> table;  // table the body reads; empty: the body's own (kway_body_table)
  std::size_t dynamic_smem = 0;  // shared memory reserved per block (limits blocks per SM)
  bool kernel_events = false;    // also time each whole launch with CUDA events (extra "kernel_ms")
};

KwayParams make_kway_params(const KwayPointSpec& s);

// Runs plan.warmup + plan.reps launches, checks every thread's output against the host reference
// (VerificationError on a mismatch) and reduces the per-warp samples to a TimedPoint. With more than
// one warp, extra["sm_warps"] records how many warps of the first timed launch ran on each SM
// (%smid); with kernel_events, extra["kernel_ms"] summarizes the per-launch CUDA-event times.
PointResult run_kway_point(const KwayPointSpec& s);

// One untimed launch of the same kernel and configuration (for the counters).
std::function<void()> kway_launch_once(const KwayPointSpec& s);

// The same launch with every path's iteration count set to zero: the zero-work twin whose counters
// are subtracted to isolate the divergent region.
std::function<void()> kway_launch_twin(const KwayPointSpec& s);

}  // namespace divbench
