// An empty kernel and its event-timed launches: what launching a grid costs with no work in it
// (the occupancy sweep subtracts this launch overhead from its whole-kernel times).
#include <cuda_runtime_api.h>

#include <stdexcept>

#include "divbench/cuda/check.hpp"
#include "divbench/cuda/launch_events.hpp"
#include "experiments/occupancy/launcher.hpp"

namespace divbench {
namespace {

__global__ void empty_kernel() {}

}  // namespace

std::vector<double> empty_kernel_launch_ms(const LaunchShape& shape, int warmup, int launches) {
  if (warmup < 0 || launches < 1)  // a -1 warm-up ("the mode's default") once emptied the sample here
    throw std::invalid_argument("empty_kernel_launch_ms: warmup must be >= 0 and launches >= 1");
  if (shape.dynamic_smem > 48 * 1024)
    DIVBENCH_CUDA_CHECK(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(shape.dynamic_smem)));
  LaunchEvents events(warmup + launches);
  for (int i = 0; i < warmup + launches; ++i) {
    DIVBENCH_CUDA_CHECK(cudaEventRecord(events.start[i]));
    empty_kernel<<<shape.blocks, shape.threads_per_block, shape.dynamic_smem>>>();
    check_launch("empty_kernel");
    DIVBENCH_CUDA_CHECK(cudaEventRecord(events.stop[i]));
  }
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  return events.elapsed_ms(warmup);
}

}  // namespace divbench
