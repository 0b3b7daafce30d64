// A timed kernel as the harness drives it, whatever its shape: how to enqueue one launch, how many
// blocks of a given shape one SM holds, and what every lane must produce. Launchers in kernels/
// build these; the harness (bench/harness/timed_point.*) owns the buffers, timing and verification.
#pragma once
#include <functional>
#include <string>

#include "divbench/cuda/launch.hpp"
#include "divbench/cuda/region_sample.hpp"

namespace divbench {

// Code placements every timed kernel is built at: placement P puts P filler instructions (16 bytes
// each on sm_70+) ahead of the timed region, so the region's loops start P*16 bytes later and the
// 128-byte window of instruction-fetch alignment is covered in 16-byte steps.
inline constexpr int kPlacements = 8;

struct TimedKernel {
  std::string name;  // for messages: "kway<fma_chain> k=3 placement 2"
  int placement = 0;
  // Enqueue one launch (checked): warp w writes samples[w] (samples may be null: warm-up), thread t out[t].
  std::function<void(const LaunchShape& shape, RegionSample* samples, float* out)> launch;
  // Blocks of this shape one SM can hold (occupancy API).
  std::function<int(const LaunchShape& shape)> blocks_per_sm;
  // What lane `lane` of every warp must produce, and the relative error accepted (0: bit-exact).
  std::function<float(int lane)> reference;
  double tolerance = 0;
};

}  // namespace divbench
