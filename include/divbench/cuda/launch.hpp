// Host side of the timing core: warm-up, N launches without host synchronization, one read-back.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "divbench/cuda/region_sample.hpp"

namespace divbench {

struct LaunchPlan {
  int warmup = 3;                   // launches run first and discarded
  int reps = 201;                   // timed launches
  std::size_t samples_per_launch = 1;  // regions each launch records (e.g. one per warp)
};

struct LaunchSamples {
  std::vector<RegionSample> samples;  // reps * samples_per_launch, launch-major
  double wall_ms = 0;                 // host wall time from the first warm-up to the last sync
  int reps = 0;
  std::size_t samples_per_launch = 0;
  // Samples of launch i.
  const RegionSample* launch(int i) const { return samples.data() + static_cast<std::size_t>(i) * samples_per_launch; }
};

// `launch(dst)` must enqueue exactly one kernel launch on the default stream that writes its
// samples_per_launch RegionSamples to dst (a device pointer). Each launch's last error is checked.
LaunchSamples time_launches(const LaunchPlan& plan, const std::function<void(RegionSample* dst)>& launch,
                            const char* kernel_name);

}  // namespace divbench
