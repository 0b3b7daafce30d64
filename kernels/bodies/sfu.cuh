// Work body: a dependent chain through the special-function unit (MUFU.SIN via __sinf) and an FMA.
// The host reference uses the exact sine, so the check allows the intrinsic's error: the map
// x -> a*sin(x) + b contracts (|a| < 1), so per-step errors (~2^-21) stay bounded.
#pragma once
#include <cmath>
#include <cstdint>

namespace divbench::bodies {

__host__ __device__ __forceinline__ float sfu_sin(float x) {
#ifdef __CUDA_ARCH__
  return __sinf(x);
#else
  return static_cast<float>(std::sin(static_cast<double>(x)));
#endif
}

struct Sfu {
  template <int P>
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, const float*, std::uint32_t) {
    const float a = 0.90f - 1.0e-3f * static_cast<float>(P);
    const float b = 1.0e-2f * static_cast<float>(P + 1);
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      x = fmaf(sfu_sin(x), a, b);
      x = fmaf(sfu_sin(x), a, b);
    }
    return x;
  }
  static constexpr double tolerance = 1.0e-4;  // absolute (values stay below 1)
};

}  // namespace divbench::bodies
