// Host side of the timing core: warm-up, N launches without host synchronization, one read-back.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "divbench/cuda/region_sample.hpp"

namespace divbench {

// Grid of one launch. Warp w of the grid (blockIdx.x * warps per block + warp in block) writes
// sample w and thread t its result out[t].
struct LaunchShape {
  int blocks = 1;
  int threads_per_block = 32;       // a multiple of 32
  std::size_t dynamic_smem = 0;     // bytes reserved per block (limits blocks per SM; unused by kernels)
  std::size_t threads() const { return static_cast<std::size_t>(blocks) * static_cast<std::size_t>(threads_per_block); }
  std::size_t warps() const { return threads() / 32; }
};

struct LaunchPlan {
  int warmup = 3;                      // launches run first and discarded
  int launches = 201;                  // timed launches
  std::size_t samples_per_launch = 1;  // regions each launch records (one per warp)
};

struct LaunchSamples {
  std::vector<RegionSample> samples;  // launches * samples_per_launch, launch-major
  double wall_ms = 0;                 // host wall time from the first warm-up to the last sync
  double gpu_ms = 0;                  // CUDA-event time of the same span on the device
  int launches = 0;
  std::size_t samples_per_launch = 0;
  // Samples of launch i.
  const RegionSample* launch(int i) const { return samples.data() + static_cast<std::size_t>(i) * samples_per_launch; }
};

// `launch(dst)` must enqueue exactly one kernel launch on the default stream that writes its
// samples_per_launch RegionSamples to dst (a device pointer; null for warm-up launches). Each
// launch's last error is checked; a sample a launch did not write is an error.
LaunchSamples time_launches(const LaunchPlan& plan, const std::function<void(RegionSample* dst)>& launch,
                            const char* kernel_name);

}  // namespace divbench
