// The one launcher behind every TimedKernel: a kernel `void k(Params, RegionSample*, float*)` whose
// warp w writes samples[w] and thread t out[t], launched on any grid (dynamic shared memory above
// 48 KiB opted in, as warp-per-SM sampling and the occupancy sweep reserve it), with the occupancy
// API for the same shape. Included by kernels/*/*.cu only.
#pragma once
#include <functional>
#include <string>
#include <utility>

#include "divbench/cuda/check.hpp"
#include "divbench/kernels/timed_kernel.hpp"

namespace divbench {

template <class Params>
using TimedKernelFn = void (*)(Params, RegionSample*, float*);

template <class Params>
void allow_dynamic_smem(TimedKernelFn<Params> kernel, std::size_t smem) {
  if (smem > 48 * 1024)
    DIVBENCH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
}

// `at_launch(params)` returns the parameters of one launch (e.g. with a device table filled in);
// `reference(lane)` what every warp's lane must produce.
template <class Params>
TimedKernel make_timed_kernel(std::string name, int placement, TimedKernelFn<Params> kernel, Params params,
                              std::function<Params(Params)> at_launch, std::function<float(int)> reference,
                              double tolerance) {
  TimedKernel t;
  t.name = std::move(name);
  t.placement = placement;
  const std::string kernel_name = t.name;
  t.launch = [kernel, params, at_launch, kernel_name](const LaunchShape& s, RegionSample* samples, float* out) {
    if (s.threads_per_block % 32 != 0) throw std::invalid_argument(kernel_name + ": threads_per_block not a multiple of 32");
    allow_dynamic_smem(kernel, s.dynamic_smem);
    kernel<<<s.blocks, s.threads_per_block, s.dynamic_smem>>>(at_launch ? at_launch(params) : params, samples, out);
    check_launch(kernel_name.c_str());
  };
  t.blocks_per_sm = [kernel](const LaunchShape& s) {
    allow_dynamic_smem(kernel, s.dynamic_smem);
    int n = 0;
    DIVBENCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, s.threads_per_block, s.dynamic_smem));
    return n;
  };
  t.reference = std::move(reference);
  t.tolerance = tolerance;
  return t;
}

}  // namespace divbench
