// Device code of the predication sweep (host launchers: predication.cu). Device-only on purpose, so
// a translation unit that wants the kernels alone (e.g. an NVRTC build for older architectures)
// includes this header and nothing that needs the CUDA runtime.
//
// Two kernels, each at every code placement Pad (dev::placed<Pad>: the timed loops start Pad * 16
// bytes later), whose timed loops have the same shape (docs/dynamic.md, "Predication"):
//   pred_branchy_kernel<Pad>   the arm loop `for q < arms: if (lane % arms == q) { x = chain(x +
//                              arm_offset(q)); __syncwarp(mask[q]); }`: one arm is the single path,
//                              two arms a real two-way divergent branch (the same code: only the
//                              active lanes differ);
//   pred_select_kernel<K, Pad> branch-free: every lane runs all K arms as independent chains in one
//                              loop and selects arm lane % K at the end (FSEL).
// Work loop per iteration: single and branchy run FmaChain's loop (4 dependent FFMA + the counter,
// compare and back branch); the K-arm select loop runs the same counter, compare and back branch
// around 4K FFMA (K chains: what computing every arm means). The SASS self-check asserts exactly
// that (include/divbench/summary/loop_shape.hpp).
#pragma once
#include <cstdint>

#include "bodies/fma_chain.cuh"
#include "divbench/core/warp.hpp"
#include "divbench/cuda/region_sample.hpp"
#include "divbench/cuda/timing.cuh"

namespace divbench::pred {

// Every arm runs FmaChain's loop with the same constants (a_of(0), b_of(0)); arm q starts from the
// lane's seed plus arm_offset(q), so the arms' results differ while their loops share two
// operands: the K-arm loop holds K accumulators and nothing else, and no arm's constants can be
// reloaded or recomputed inside it.
__host__ __device__ __forceinline__ float arm_offset(int q) { return 2.0f * static_cast<float>(q); }

// The two constants in per-lane registers: plus a zero that depends on the lane at run time (ptxas
// cannot see through it), so no kernel reads one from the constant bank inside its loop (without
// it, nvcc 13.0 put an LDC or a MOV into the loops of K >= 8 or 16 on every architecture).
__device__ __forceinline__ float in_register(float c, std::uint32_t zero, int lane) {
  return c + __uint_as_float(zero & static_cast<std::uint32_t>(lane));
}

struct PredArms {
  float a;
  float b;
  std::uint32_t mask[kWarpLanes];  // lanes of each arm (lane % arms)
  std::int32_t arms;
  std::uint32_t iters;
  std::uint32_t zero;  // always 0; the placement filler folds into it
};

template <int Pad = 0>
__global__ void pred_branchy_kernel(PredArms p, RegionSample* samples, float* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = tid / 32u;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int arm = lane % p.arms;
  float x = dev::placed<Pad>(lane_seed(lane), p.zero);
  const float a = in_register(p.a, p.zero, lane), b = in_register(p.b, p.zero, lane);
  dev::RegionTimer timer;
  timer.start();
#pragma unroll 1
  for (int q = 0; q < p.arms; ++q) {
    if (arm == q) {
      x = bodies::FmaChain::chain(x + arm_offset(q), a, b, p.iters);
      __syncwarp(p.mask[q]);
    }
  }
  timer.stop(samples ? samples + warp : nullptr, warp);
  out[tid] = x;
}

template <int K, int Pad = 0>
__global__ void pred_select_kernel(PredArms p, RegionSample* samples, float* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = tid / 32u;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int arm = lane % K;
  const float x0 = dev::placed<Pad>(lane_seed(lane), p.zero);
  const float a = in_register(p.a, p.zero, lane), b = in_register(p.b, p.zero, lane);
  float x[K];
#pragma unroll
  for (int q = 0; q < K; ++q) x[q] = x0 + arm_offset(q);
  dev::RegionTimer timer;
  timer.start();
#pragma unroll 1
  for (std::uint32_t i = 0; i < p.iters; ++i) {
#pragma unroll
    for (int q = 0; q < K; ++q) {
      x[q] = fmaf(x[q], a, b);
      x[q] = fmaf(x[q], a, b);
      x[q] = fmaf(x[q], a, b);
      x[q] = fmaf(x[q], a, b);
    }
  }
  float r = x[0];
#pragma unroll
  for (int q = 1; q < K; ++q) r = (arm == q) ? x[q] : r;
  timer.stop(samples ? samples + warp : nullptr, warp);
  out[tid] = r;
}

}  // namespace divbench::pred
