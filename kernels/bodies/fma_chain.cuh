// Work body: a dependent FP32 FMA chain (latency-bound): 4 dependent FFMAs per iteration.
// P is a compile-time salt for callers that want distinct code per path; the k-way kernel uses P = 0.
#pragma once
#include <cmath>
#include <cstdint>

namespace divbench::bodies {

struct FmaChain {
  template <int P>
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, const float*, std::uint32_t) {
    const float a = 0.9990f - 1.0e-5f * static_cast<float>(P);
    const float b = 1.0e-3f * static_cast<float>(P + 1);
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      x = fmaf(x, a, b);
      x = fmaf(x, a, b);
      x = fmaf(x, a, b);
      x = fmaf(x, a, b);
    }
    return x;
  }
  static constexpr double tolerance = 0.0;  // fmaf is correctly rounded on host and device
};

}  // namespace divbench::bodies
