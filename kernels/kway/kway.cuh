// The k-way divergent region, templated on the work body. Included by kway.cu (and by nothing that
// is timed differently), so every experiment times the same code.
#pragma once
#include <utility>

#include "divbench/cuda/timing.cuh"
#include "divbench/kernels/kway.hpp"

namespace divbench::kway {

// Lane seed: distinct per lane, identical across warps, so one host reference serves every warp.
__host__ __device__ __forceinline__ float lane_seed(int lane) { return 1.0f + 0.03125f * static_cast<float>(lane); }

// 32 guarded paths: `if (path == P) { body<P>; __syncwarp(mask_of_path[P]); }` for P = 0..31.
// Paths P >= k are skipped by every lane (a uniform not-taken branch).
template <class Body, int... P>
__device__ __forceinline__ float divergent_region(int path, float x, const KwayParams& p,
                                                  std::integer_sequence<int, P...>) {
  (((path == P) ? (x = Body::template run<P>(x, p.iters_of_path[P], p.table, p.table_words),
                   __syncwarp(p.mask_of_path[P]), 0)
                : 0),
   ...);
  return x;
}

template <class Body>
__global__ void kway_kernel(KwayParams p, RegionSample* samples, float* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = tid / 32u;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int path = p.path_of_lane[lane];
  float x = lane_seed(lane);
  dev::RegionTimer timer;
  timer.start();
  x = divergent_region<Body>(path, x, p, std::make_integer_sequence<int, kWarpLanes>{});
  timer.stop(samples ? samples + warp : nullptr, warp);
  out[tid] = x;
}

// Host reference of lane `lane`: the same body, compiled for the host.
template <class Body, int... P>
float reference(int path, float x, const KwayParams& p, const float* table, std::integer_sequence<int, P...>) {
  ((path == P ? (x = Body::template run<P>(x, p.iters_of_path[P], table, p.table_words), 0) : 0), ...);
  return x;
}

}  // namespace divbench::kway
