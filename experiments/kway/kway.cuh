// The k-way divergent region, templated on the work body and the code placement. Included by
// kway.cu (and by nothing that is timed differently), so every experiment times the same code.
#pragma once

#include "divbench/core/warp.hpp"
#include "divbench/cuda/timing.cuh"
#include "experiments/kway/launcher.hpp"

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

// The no-divergence control: the same loop over k paths, in which every lane runs every path. Its
// lanes sit on path kControlPath (32: `path != q` holds for every q < 32, so no branch diverges) and
// run slot path & 31's body (iterations and __syncwarp mask: a full one) at each of the k steps. The
// slot is loop-invariant as `path` is in divergent_region (where the compiler indexes the path's
// parameters by path, since path == q inside the branch), so the two loops have the same shape:
// one compare, the branch, two parameter loads, the body, the __syncwarp, the back branch; the SASS
// check (experiments/cost/tests/sass/test_kway_control_shapes.cpp) holds them equal at every placement. What the
// control costs per path with n = 0 is the loop over paths; the divergent kernel's excess over it
// is what divergence itself costs.
// SlotPerStep (kway_control_slots_kernel): the slot is q & (path - kControlPath), computed at each
// step. Its lanes sit on path kControlPath + 31 (control_slot_q: step q reads slot q, the parameter
// addresses the divergent kernel's step q reads; every slot holds n and a full mask,
// make_kway_control_params) or on kControlPath (control_slot_0: the same code reads slot 0
// throughout); `path != q` holds for every q < 32 either way. The two runs of one kernel differ in
// which parameter slots they read, nothing else: their difference is what reading a new slot per
// step costs. (Indexing by q costs an address computation per step that the divergent kernel does
// once, so this kernel is not the control of b_loop. The mask rides on the path, not on a new
// parameter, so that every other k-way kernel keeps its parameter layout and its SASS byte for byte.)
template <class Body, bool SlotPerStep>
__device__ __forceinline__ float control_region(int path, float x, const KwayParams& p) {
  const int fixed = path & (kWarpLanes - 1);
#pragma unroll 1
  for (int q = 0; q < p.k; ++q) {
    if (path != q) {
      const int slot = SlotPerStep ? (q & (path - kControlPath)) : fixed;
      x = Body::template run<0>(x, p.iters_of_path[slot], p.table, p.table_words);
      __syncwarp(p.mask_of_path[slot]);
    }
  }
  return x;
}

// One warp's timed region: the divergent loop, or a no-divergence control's.
template <class Body, int Pad, KwayRegion Kind>
__device__ __forceinline__ void timed_kway_region(const KwayParams& p, RegionSample* samples, float* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = tid / 32u;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int path = p.path_of_lane[lane];
  float x = dev::placed<Pad>(lane_seed(lane), p.zero);
  dev::RegionTimer timer;
  timer.start();
  if constexpr (Kind == KwayRegion::control) x = control_region<Body, false>(path, x, p);
  else if constexpr (Kind == KwayRegion::control_slot_q) x = control_region<Body, true>(path, x, p);
  else x = divergent_region<Body>(path, x, p);
  timer.stop(samples ? samples + warp : nullptr, warp);
  out[tid] = x;
}

template <class Body, int Pad>
__global__ void kway_kernel(KwayParams p, RegionSample* samples, float* out) {
  timed_kway_region<Body, Pad, KwayRegion::divergent>(p, samples, out);
}

// The control kernel: the same placement filler and timer around control_region.
template <class Body, int Pad>
__global__ void kway_control_kernel(KwayParams p, RegionSample* samples, float* out) {
  timed_kway_region<Body, Pad, KwayRegion::control>(p, samples, out);
}

// The control whose parameter slot is q & (path - kControlPath) at step q (control_region<Body, true>).
template <class Body, int Pad>
__global__ void kway_control_slots_kernel(KwayParams p, RegionSample* samples, float* out) {
  timed_kway_region<Body, Pad, KwayRegion::control_slot_q>(p, samples, out);  // both slot regions
}

#ifndef __CUDACC_RTC__  // host side: NVRTC (tests/sass/nvrtc/) compiles the kernels only
// Host reference of one lane: the same body, compiled for the host, for the lane's path.
template <class Body>
float reference(int path, float x, const KwayParams& p, const float* table) {
  return Body::template run<0>(x, p.iters_of_path[path], table, p.table_words);
}

// Host reference of one lane of a control: at every step q != path, the body of slot path & 31
// (SlotPerStep: of slot q & (path - kControlPath)).
template <class Body, bool SlotPerStep>
float control_reference(int path, float x, const KwayParams& p, const float* table) {
  for (int q = 0; q < p.k; ++q)
    if (path != q)
      x = Body::template run<0>(x, p.iters_of_path[SlotPerStep ? (q & (path - kControlPath)) : path & (kWarpLanes - 1)], table, p.table_words);
  return x;
}

#endif

}  // namespace divbench::kway
