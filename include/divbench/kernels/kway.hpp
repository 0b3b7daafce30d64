// Host launch wrapper of the k-way divergence kernel (kernels/kway/kway.cu).
//
// Each warp runs one divergent region: lane l takes path path_of_lane[l] (0..k-1); path P runs the
// work body's loop for iters_of_path[P] iterations inside `if (path == P)`, closed by
// __syncwarp(mask_of_path[P]); the region is bracketed by clock64() after a full __syncwarp().
#pragma once
#include <cstddef>
#include <cstdint>
#ifndef __CUDACC_RTC__  // NVRTC (tests/sass/nvrtc/) sees the types only
#include <cuda_runtime_api.h>

#include <array>
#include <string>
#include <vector>
#endif

#include "divbench/cuda/region_sample.hpp"

namespace divbench {

inline constexpr int kWarpLanes = 32;

enum class Body { fma_chain, fma_indep, int_alu, sfu, mem_divergent };

#ifndef __CUDACC_RTC__
const std::vector<Body>& all_bodies();
const char* body_name(Body b);
// Throws UsageError naming the valid bodies.
Body parse_body(const std::string& name);
#endif

struct KwayParams {
  std::int32_t k = 1;
  std::uint8_t path_of_lane[kWarpLanes] = {};
  std::uint32_t mask_of_path[kWarpLanes] = {};  // lanes of each path (for the per-class __syncwarp)
  std::uint32_t iters_of_path[kWarpLanes] = {};
  const float* table = nullptr;                 // device table for the divergent-memory body
  std::uint32_t table_words = 0;                // a power of two
};

#ifndef __CUDACC_RTC__
// Fill mask_of_path from path_of_lane (k must already be set; every lane's path < k).
void finish_kway_params(KwayParams& p);

// Enqueue one launch: `blocks` x `threads_per_block` threads (a multiple of 32). Warp w writes its
// RegionSample to samples[w] (samples may be null: a warm-up) and each thread its result to out[tid].
// dynamic_smem: bytes of dynamic shared memory reserved per block (unused by the kernel; it limits
// how many blocks an SM can hold, which is how the occupancy sweep controls residency).
void launch_kway(Body body, const KwayParams& p, int blocks, int threads_per_block, RegionSample* samples, float* out,
                 cudaStream_t stream = nullptr, std::size_t dynamic_smem = 0);

// Blocks of this kernel one SM can hold at this block size and dynamic shared memory (occupancy API).
int kway_max_active_blocks(Body body, int threads_per_block, std::size_t dynamic_smem);

// The table a body reads (mem_divergent: 2^21 small floats from a fixed seed; other bodies: empty).
std::vector<float> kway_body_table(Body body);

// What lane `lane` must produce (host computation of the same body, same float operations).
float kway_reference(Body body, const KwayParams& p, int lane, const std::vector<float>& table_host);

// Largest relative error accepted against kway_reference (0: bit-exact).
double kway_tolerance(Body body);
#endif  // __CUDACC_RTC__

}  // namespace divbench
