// Device side of the timing core: bracket a region with clock64() (and %globaltimer, to derive the
// effective SM clock of every launch), after a __syncwarp() so the warp enters converged.
#pragma once
#include <cstdint>

#include "divbench/cuda/region_sample.hpp"

namespace divbench::dev {

__device__ __forceinline__ std::uint64_t globaltimer() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ std::uint32_t smid() {
  std::uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ std::uint32_t lane_id() { return threadIdx.x & 31u; }

// Code placement: Pad + 1 filler instructions ahead of the timed region (one IMAD each: 16 bytes
// on sm_70+, 8 on Pascal), so everything after them, the region's loops included, starts Pad
// instructions later than at placement 0 while the code around the filler stays the same. `zero`
// is a kernel argument that is 0 at run time: the filler's value is masked by it and added to x
// (x + 0.0f == x for the finite seeds the kernels use), which the compiler cannot prove, so the
// filler stays and must run before x is first used: ahead of the region, never inside it. The
// binary's own SASS shows where each placement's loops landed.
template <int Pad>
__device__ __forceinline__ float placed(float x, std::uint32_t zero) {
  std::uint32_t v = zero;
#pragma unroll
  for (int i = 0; i <= Pad; ++i) asm volatile("mad.lo.u32 %0, %0, %0, 1;" : "+r"(v));
  return x + __uint_as_float(v & zero);
}

// Usage: RegionTimer t; t.start(); <region> t.stop(dst);  (every lane of the warp calls both)
struct RegionTimer {
  std::uint64_t g0;
  long long c0;

  __device__ __forceinline__ void start() {
    __syncwarp();
    g0 = globaltimer();
    c0 = clock64();
  }
  // Lane 0 writes the sample; `dst` may be null (warm-up launches record nothing).
  __device__ __forceinline__ void stop(RegionSample* dst, std::uint32_t warp_index) {
    __syncwarp();
    const long long c1 = clock64();
    const std::uint64_t g1 = globaltimer();
    if (dst != nullptr && lane_id() == 0) {
      dst->cycles = static_cast<std::uint64_t>(c1 - c0);
      dst->ns = g1 - g0;
      dst->smid = smid();
      dst->warp = warp_index;
    }
  }
};

}  // namespace divbench::dev
