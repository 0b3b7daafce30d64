// The k-way divergent region, templated on the work body and the code placement. Included by
// kway.cu (and by nothing that is timed differently), so every experiment times the same code.
#pragma once

#include "divbench/core/warp.hpp"
#include "divbench/cuda/timing.cuh"
#include "divbench/kernels/kway.hpp"

namespace divbench::kway {

// The divergent region: path classes run in turn, `if (path == q) { body; __syncwarp(mask_of_path[q]); }`
// for q = 0..k-1. The loop over q is warp-uniform (k is a kernel argument) and is not unrolled, so
// every path executes the same instructions at the same addresses: only the active lanes differ.
// (Earlier we gave each path its own compiled copy; on the H200 the copies differed by code layout,
// 27-29 cycles per iteration, which bent T(k). Body<0> for every path removes that confound; the
// placements make the remaining dependence on layout a measured spread.)
template <class Body>
__device__ __forceinline__ float divergent_region(int path, float x, const KwayParams& p) {
#pragma unroll 1
  for (int q = 0; q < p.k; ++q) {
    if (path == q) {
      x = Body::template run<0>(x, p.iters_of_path[q], p.table, p.table_words);
      __syncwarp(p.mask_of_path[q]);
    }
  }
  return x;
}

template <class Body, int Pad>
__global__ void kway_kernel(KwayParams p, RegionSample* samples, float* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = tid / 32u;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int path = p.path_of_lane[lane];
  float x = dev::placed<Pad>(lane_seed(lane), p.zero);
  dev::RegionTimer timer;
  timer.start();
  x = divergent_region<Body>(path, x, p);
  timer.stop(samples ? samples + warp : nullptr, warp);
  out[tid] = x;
}

// Host reference of one lane: the same body, compiled for the host, for the lane's path.
template <class Body>
float reference(int path, float x, const KwayParams& p, const float* table) {
  return Body::template run<0>(x, p.iters_of_path[path], table, p.table_words);
}

}  // namespace divbench::kway
