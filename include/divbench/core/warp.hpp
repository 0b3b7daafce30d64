// Warp basics shared by every timed kernel and its host reference: the warp width and the per-lane
// seed each kernel starts from (distinct per lane, identical across warps, so one host reference
// serves every warp of a launch).
#pragma once

#if defined(__CUDACC__)
#define DIVBENCH_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define DIVBENCH_HOST_DEVICE inline
#endif

namespace divbench {

inline constexpr int kWarpLanes = 32;

DIVBENCH_HOST_DEVICE float lane_seed(int lane) { return 1.0f + 0.03125f * static_cast<float>(lane); }

}  // namespace divbench
