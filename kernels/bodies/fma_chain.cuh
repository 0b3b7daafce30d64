// Work body: a dependent FP32 FMA chain (latency-bound): 4 dependent FFMAs per iteration.
// P is a compile-time salt for callers that want distinct code per path; the k-way kernel uses P = 0.
// chain() takes the constants at run time (the predication kernels pass each arm's as data, so
// every arm runs the same instructions).
#pragma once
#include <cmath>
#include <cstdint>

namespace divbench::bodies {

struct FmaChain {
  // The constants of salt P.
  __host__ __device__ __forceinline__ static float a_of(int p) { return 0.9990f - 1.0e-5f * static_cast<float>(p); }
  __host__ __device__ __forceinline__ static float b_of(int p) { return 1.0e-3f * static_cast<float>(p + 1); }

  __host__ __device__ __forceinline__ static float chain(float x, float a, float b, std::uint32_t iters) {
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      x = fmaf(x, a, b);
      x = fmaf(x, a, b);
      x = fmaf(x, a, b);
      x = fmaf(x, a, b);
    }
    return x;
  }

  template <int P>
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, const float*, std::uint32_t) {
    return chain(x, a_of(P), b_of(P), iters);
  }
  static constexpr double tolerance = 0.0;  // fmaf is correctly rounded on host and device
};

}  // namespace divbench::bodies
