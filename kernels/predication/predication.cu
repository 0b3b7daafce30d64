// Predication versus divergence: a single path, a real two-way divergent branch, and a branch-free
// form that computes every arm and selects (the SASS test checks the branchy kernel branches and the
// predicated ones do not).
#include <stdexcept>
#include <utility>

#include "../bodies/fma_chain.cuh"
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/timing.cuh"
#include "divbench/kernels/kway.hpp"
#include "divbench/kernels/predication.hpp"
#include "../kway/kway.cuh"

namespace divbench {
namespace pred {

using bodies::FmaChain;

__global__ void pred_single_kernel(std::uint32_t iters, RegionSample* samples, float* out) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  float x = kway::lane_seed(lane);
  dev::RegionTimer timer;
  timer.start();
  x = FmaChain::run<0>(x, iters, nullptr, 0);
  timer.stop(samples, 0);
  out[threadIdx.x] = x;
}

// Two arms, each a long loop closed by its own __syncwarp: the compiler cannot if-convert loops, so
// this is a real divergent branch (BSSY/BSYNC on sm_70+).
__global__ void pred_branchy_kernel(std::uint32_t iters, RegionSample* samples, float* out) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  float x = kway::lane_seed(lane);
  dev::RegionTimer timer;
  timer.start();
  if ((lane & 1) == 0) {
    x = FmaChain::run<0>(x, iters, nullptr, 0);
    __syncwarp(0x55555555u);
  } else {
    x = FmaChain::run<1>(x, iters, nullptr, 0);
    __syncwarp(0xAAAAAAAAu);
  }
  timer.stop(samples, 0);
  out[threadIdx.x] = x;
}

// Arm A of FmaChain's constants (the same expressions FmaChain::run<A> folds).
template <int A>
struct Arm {
  static constexpr float a = 0.9990f - 1.0e-5f * static_cast<float>(A);
  static constexpr float b = 1.0e-3f * static_cast<float>(A + 1);
};

template <int... A>
__device__ __forceinline__ void step_all(float (&x)[sizeof...(A)], std::integer_sequence<int, A...>) {
  ((x[A] = fmaf(x[A], Arm<A>::a, Arm<A>::b), x[A] = fmaf(x[A], Arm<A>::a, Arm<A>::b),
    x[A] = fmaf(x[A], Arm<A>::a, Arm<A>::b), x[A] = fmaf(x[A], Arm<A>::a, Arm<A>::b)),
   ...);
}

// Every lane runs all K arms in one loop (K independent FMA chains) and selects its own: no branch
// depends on the lane.
template <int K>
__global__ void pred_select_kernel(std::uint32_t iters, RegionSample* samples, float* out) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int arm = lane % K;
  const float x0 = kway::lane_seed(lane);
  float x[K];
#pragma unroll
  for (int a = 0; a < K; ++a) x[a] = x0;
  dev::RegionTimer timer;
  timer.start();
#pragma unroll 1
  for (std::uint32_t i = 0; i < iters; ++i) step_all(x, std::make_integer_sequence<int, K>{});
  float r = x[0];
#pragma unroll
  for (int a = 1; a < K; ++a) r = (arm == a) ? x[a] : r;
  timer.stop(samples, 0);
  out[threadIdx.x] = r;
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

void launch_predication(PredVariant v, int arms, std::uint32_t iters, RegionSample* samples, float* out) {
  switch (v) {
    case PredVariant::single: pred::pred_single_kernel<<<1, 32>>>(iters, samples, out); break;
    case PredVariant::branchy: pred::pred_branchy_kernel<<<1, 32>>>(iters, samples, out); break;
    case PredVariant::predicated:
      switch (arms) {
        case 1: pred::pred_select_kernel<1><<<1, 32>>>(iters, samples, out); break;
        case 2: pred::pred_select_kernel<2><<<1, 32>>>(iters, samples, out); break;
        case 4: pred::pred_select_kernel<4><<<1, 32>>>(iters, samples, out); break;
        case 8: pred::pred_select_kernel<8><<<1, 32>>>(iters, samples, out); break;
        case 16: pred::pred_select_kernel<16><<<1, 32>>>(iters, samples, out); break;
        case 32: pred::pred_select_kernel<32><<<1, 32>>>(iters, samples, out); break;
        default: throw std::invalid_argument("launch_predication: arms must be 1, 2, 4, 8, 16 or 32");
      }
      break;
  }
  check_launch("predication_kernel");
}

float predication_reference(PredVariant v, int arms, std::uint32_t iters, int lane) {
  const int n = pred_arms(v, arms);
  KwayParams p;
  p.k = n;
  for (int l = 0; l < kWarpLanes; ++l) {
    p.path_of_lane[l] = static_cast<std::uint8_t>(l % n);
    p.iters_of_path[l] = l < n ? iters : 0;
  }
  finish_kway_params(p);
  return kway_reference(Body::fma_chain, p, lane, {});
}

}  // namespace divbench
