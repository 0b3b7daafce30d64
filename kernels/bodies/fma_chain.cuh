// Work body: a dependent FP32 FMA chain (latency-bound): 4 dependent FFMAs per iteration.
// P is a compile-time salt for callers that want distinct code per path; the k-way kernel uses P = 0.
// chain() takes the constants at run time (the predication kernels pass each arm's as data, so
// every arm runs the same instructions).
#pragma once
#include <cmath>
#include <cstdint>

namespace divbench::bodies {

struct FmaChain {
  // The constants of salt P. a is slightly above 1, so x = a*x + b has no attracting fixed point:
  // the result keeps moving with every iteration (about x0 + 4*iters*b), and a kernel that ran the
  // wrong number of iterations cannot match the host reference by converging to the same value.
  __host__ __device__ __forceinline__ static float a_of(int p) {
    return 1.0f + 1.1920929e-7f * static_cast<float>(p + 1);  // 1 + (p+1) * 2^-23
  }
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
