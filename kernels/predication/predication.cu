// Predication versus divergence: one path, a real two-way divergent branch (one kernel, arms = 1 or
// 2), and a branch-free form that computes every arm and selects (the SASS test checks the branchy
// kernel branches and the predicated ones do not).
#include <stdexcept>
#include <string>

#include "../bodies/fma_chain.cuh"
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/timing.cuh"
#include "divbench/core/warp.hpp"
#include "divbench/kernels/predication.hpp"
#include "../timed_launch.cuh"

namespace divbench {
namespace pred {

using bodies::FmaChain;

// Each arm's FMA-chain constants as data, so every arm runs the same instructions at the same
// addresses (separately compiled copies of a loop can differ by code layout; the k-way kernel saw
// 27 vs. 29 cycles per iteration between copies on the H200).
struct PredArms {
  float a[kWarpLanes];
  float b[kWarpLanes];
  std::uint32_t mask[kWarpLanes];  // lanes of each arm (lane % arms)
  std::int32_t arms;
  std::uint32_t iters;
};

// Arms run in turn: `if (lane % arms == q) { chain(a[q], b[q]); __syncwarp(mask[q]); }` for
// q = 0..arms-1, the loop over q warp-uniform and not unrolled. arms = 1 is the single path, arms = 2
// the two-way divergent branch (BSSY/BSYNC around the guarded body on sm_70+).
__global__ void pred_branchy_kernel(PredArms p, RegionSample* samples, float* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = tid / 32u;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int arm = lane % p.arms;
  float x = lane_seed(lane);
  dev::RegionTimer timer;
  timer.start();
#pragma unroll 1
  for (int q = 0; q < p.arms; ++q) {
    if (arm == q) {
      x = FmaChain::chain(x, p.a[q], p.b[q], p.iters);
      __syncwarp(p.mask[q]);
    }
  }
  timer.stop(samples ? samples + warp : nullptr, warp);
  out[tid] = x;
}

// Every lane runs all K arms in one loop (K independent FMA chains) and selects its own with FSEL:
// no branch depends on the lane. K = 1 is the branch-free single path (the SASS baseline).
template <int K>
__global__ void pred_select_kernel(PredArms p, RegionSample* samples, float* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = tid / 32u;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int arm = lane % K;
  const float x0 = lane_seed(lane);
  float x[K], a[K], b[K];
#pragma unroll
  for (int q = 0; q < K; ++q) {
    x[q] = x0;
    a[q] = p.a[q];
    b[q] = p.b[q];
  }
  dev::RegionTimer timer;
  timer.start();
#pragma unroll 1
  for (std::uint32_t i = 0; i < p.iters; ++i) {
#pragma unroll
    for (int q = 0; q < K; ++q) {
      x[q] = fmaf(x[q], a[q], b[q]);
      x[q] = fmaf(x[q], a[q], b[q]);
      x[q] = fmaf(x[q], a[q], b[q]);
      x[q] = fmaf(x[q], a[q], b[q]);
    }
  }
  float r = x[0];
#pragma unroll
  for (int q = 1; q < K; ++q) r = (arm == q) ? x[q] : r;
  timer.stop(samples ? samples + warp : nullptr, warp);
  out[tid] = r;
}

PredArms make_arms(int arms, std::uint32_t iters) {
  if (arms < 1 || arms > kWarpLanes) throw std::invalid_argument("predication: arms outside 1..32");
  PredArms p{};
  p.arms = arms;
  p.iters = iters;
  for (int q = 0; q < arms; ++q) {
    p.a[q] = FmaChain::a_of(q);
    p.b[q] = FmaChain::b_of(q);
  }
  for (int lane = 0; lane < kWarpLanes; ++lane) p.mask[lane % arms] |= 1u << lane;
  return p;
}

}  // namespace pred

const char* pred_variant_name(PredVariant v) {
  switch (v) {
    case PredVariant::single: return "single";
    case PredVariant::branchy: return "branchy";
    case PredVariant::predicated: return "predicated";
  }
  return "?";
}

const std::vector<int>& predicated_arm_counts() {
  static const std::vector<int> v{1, 2, 4, 8, 16, 32};
  return v;
}

int pred_arms(PredVariant v, int arms) {
  switch (v) {
    case PredVariant::single: return 1;
    case PredVariant::branchy: return 2;
    case PredVariant::predicated: return arms;
  }
  return 0;
}

namespace {

// The kernel a variant runs (std::invalid_argument for an arm count not built).
using PredKernel = void (*)(pred::PredArms, RegionSample*, float*);
PredKernel kernel_of(PredVariant v, int arms) {
  switch (v) {
    case PredVariant::single:
    case PredVariant::branchy: return pred::pred_branchy_kernel;
    case PredVariant::predicated:
      switch (arms) {
        case 1: return pred::pred_select_kernel<1>;
        case 2: return pred::pred_select_kernel<2>;
        case 4: return pred::pred_select_kernel<4>;
        case 8: return pred::pred_select_kernel<8>;
        case 16: return pred::pred_select_kernel<16>;
        case 32: return pred::pred_select_kernel<32>;
      }
  }
  throw std::invalid_argument("predication: arms must be 1, 2, 4, 8, 16 or 32");
}

}  // namespace

TimedKernel predication_timed_kernel(PredVariant v, int arms, std::uint32_t iters) {
  const int n = pred_arms(v, arms);
  return make_timed_kernel<pred::PredArms>(
      std::string("predication/") + pred_variant_name(v) + " arms=" + std::to_string(n), 0, kernel_of(v, n),
      pred::make_arms(n, iters), nullptr, [v, arms, iters](int lane) { return predication_reference(v, arms, iters, lane); },
      0.0);
}

float predication_reference(PredVariant v, int arms, std::uint32_t iters, int lane) {
  const pred::PredArms p = pred::make_arms(pred_arms(v, arms), iters);
  const int q = lane % p.arms;
  return bodies::FmaChain::chain(lane_seed(lane), p.a[q], p.b[q], iters);
}

}  // namespace divbench
