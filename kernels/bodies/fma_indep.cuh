// Work body: eight independent FP32 FMA chains per path (throughput-bound: one warp can issue an
// FMA every cycle instead of waiting out the FMA latency as in FmaChain). Path P uses its own
// constants. Only explicit fmaf and plain adds, so host and device agree bit for bit.
#pragma once
#include <cmath>
#include <cstdint>

#include "fma_chain.cuh"

namespace divbench::bodies {

struct FmaIndep {
  template <int P>
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, const float*, std::uint32_t) {
    // FmaChain's constants: no attracting fixed point, so the result depends on the iteration count.
    const float a = FmaChain::a_of(P);
    const float b = FmaChain::b_of(P);
    float y0 = x, y1 = x + 0.125f, y2 = x + 0.25f, y3 = x + 0.375f;
    float y4 = x + 0.5f, y5 = x + 0.625f, y6 = x + 0.75f, y7 = x + 0.875f;
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      y0 = fmaf(y0, a, b);
      y1 = fmaf(y1, a, b);
      y2 = fmaf(y2, a, b);
      y3 = fmaf(y3, a, b);
      y4 = fmaf(y4, a, b);
      y5 = fmaf(y5, a, b);
      y6 = fmaf(y6, a, b);
      y7 = fmaf(y7, a, b);
    }
    return ((y0 + y1) + (y2 + y3)) + ((y4 + y5) + (y6 + y7));
  }
  static constexpr double tolerance = 0.0;  // fmaf and adds are correctly rounded on host and device
};

}  // namespace divbench::bodies
