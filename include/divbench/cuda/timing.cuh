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
