// Work body: a dependent 32-bit integer chain (multiply-add, shift, xor, rotate: the integer ALU
// pipes, no floating point). Path P uses its own constants. Unsigned wrap-around is defined, so host
// and device agree bit for bit; the result is converted exactly (24 bits) to float.
#pragma once
#include <cstdint>

#include "bits.cuh"

namespace divbench::bodies {

struct IntAlu {
  template <int P>
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, const float*, std::uint32_t) {
    const std::uint32_t m = 0x01000193u + 2u * static_cast<std::uint32_t>(P);
    const std::uint32_t c = 0x9E3779B9u * static_cast<std::uint32_t>(P + 1);
    std::uint32_t h = float_bits(x);
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      h = h * m + c;
      h ^= h >> 15;
      h = (h << 7) | (h >> 25);
      h += i;
    }
    return static_cast<float>(h >> 8);
  }
  static constexpr double tolerance = 0.0;
};

}  // namespace divbench::bodies
