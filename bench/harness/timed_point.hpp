// One point of any timed experiment: launches of a TimedKernel in the configured sampling mode,
// every thread's output checked against the host reference, samples reduced to a TimedPoint.
#pragma once
#include <functional>
#include <optional>

#include "config.hpp"
#include "divbench/core/result.hpp"
#include "divbench/kernels/timed_kernel.hpp"
#include "experiment.hpp"

namespace divbench {

struct TimedRun {
  TimingConfig timing;
  // A fixed grid (the occupancy sweep owns its launch shape): `timing.reps` launches of it, each
  // reduced to the median of its warps. Unset: the grid follows timing.sampling.
  std::optional<LaunchShape> shape;
  bool kernel_events = false;  // also time each whole launch with CUDA events (extra "kernel_ms")
};

// The grid of one warp-per-SM launch: one block of one warp on every SM, each block reserving enough
// shared memory that no SM can hold two (checked with the occupancy API; std::runtime_error if not).
LaunchShape warp_per_sm_shape(const TimedKernel& kernel, const DeviceRecord& dev);

// Runs the launches and checks every thread's output (VerificationError on a mismatch: the timing
// is discarded). The point's extra fields: verified, sampling, placement, and with several warps per
// launch the SMs they ran on ("sm_warps" for a fixed grid; for warp-per-sm "sms_distinct" and
// "launches_with_shared_sm", which must be 0 — a launch whose warps shared an SM is reported).
PointResult run_timed_point(const TimedKernel& kernel, const TimedRun& run, const DeviceRecord& dev, double k);

// One untimed launch of one warp, synchronized (what --metrics profiles).
std::function<void()> launch_once(const TimedKernel& kernel);

// The point of a timed experiment at coordinates `axes`: run_timed_point(kernel, run, dev, k), with
// `extra` added to what the point records, and its --metrics launches (`once`, `twin`; none: null).
PointSpec timed_point_spec(json axes, const TimedKernel& kernel, const TimedRun& run, const DeviceRecord& dev, double k,
                           json extra, std::function<void()> once = nullptr, std::function<void()> twin = nullptr);

}  // namespace divbench
