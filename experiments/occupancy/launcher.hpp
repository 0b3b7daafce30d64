// Launch overhead: an empty kernel launched with a given grid (experiments/occupancy/empty_kernel.cu).
#pragma once
#include <vector>

#include "divbench/cuda/launch.hpp"

namespace divbench {

// CUDA-event time (ms) of each of `launches` launches of an empty kernel with `shape` (dynamic
// shared memory reserved as the shape says), after `warmup` untimed ones, on the current device.
std::vector<double> empty_kernel_launch_ms(const LaunchShape& shape, int warmup, int launches);

}  // namespace divbench
