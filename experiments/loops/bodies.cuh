// The loop-cost model's validation set: loop bodies that the fit of its constants never sees (the fit
// uses the k-way bodies of kernels/bodies/ only). Each is one loop, one path per iteration, timed by
// differencing two iteration counts (`--sweep loops`), and predicted from its own SASS at each code
// placement (`divbench kernels fit --validation`). Host and device run the same arithmetic: integer
// and FMA bodies bit-exact, MUFU bodies within an absolute tolerance (values kept in (0, 2)).
#pragma once
#include <cstdint>
#include <cmath>

#include "bodies/bits.cuh"

namespace divbench::validation {

using bodies::float_bits;

// An IMAD/LOP3/SHF chain: multiply-add, xor-shift, shift-or, dependent.
struct IntChain {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t) {
    std::uint32_t h = float_bits(x);
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      h = h * 0x2545F491u + 0x6B43A9B5u;
      h ^= h >> 11;
      h |= h << 3;
    }
    return static_cast<float>(h >> 8);
  }
  static constexpr double tolerance = 0.0;
};

// Two independent FFMA chains and an integer chain in one loop (FMA and ALU pipes together).
struct MixedPipes {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t) {
    float a = x, b = x + 0.5f;
    std::uint32_t h = float_bits(x);
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      a = fmaf(a, 0.999f, 0.001f);
      b = fmaf(b, 0.998f, 0.002f);
      a = fmaf(a, 0.999f, 0.001f);
      b = fmaf(b, 0.998f, 0.002f);
      h = h * 0x01000193u ^ i;
    }
    return a + b + static_cast<float>(h >> 20);
  }
  static constexpr double tolerance = 0.0;
};

// MUFU.EX2 feeding a dependent FMUL and FFMA (a variable-latency producer and its consumers).
struct MufuEx2 {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t) {
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
#ifdef __CUDA_ARCH__
      const float e = __expf(-x);  // FMUL by log2(e), then MUFU.EX2
#else
      const float e = std::exp(-x);
#endif
      x = fmaf(e, 0.75f, 0.5f);
    }
    return x;
  }
  static constexpr double tolerance = 1.0e-4;  // absolute; a contracting map in (0.5, 1.25)
};

// MUFU.RCP through __fdividef, then a dependent FFMA.
struct MufuRcp {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t) {
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
#ifdef __CUDA_ARCH__
      const float r = __fdividef(1.0f, x + 1.0f);
#else
      const float r = 1.0f / (x + 1.0f);
#endif
      x = fmaf(r, 0.5f, 0.25f);
    }
    return x;
  }
  static constexpr double tolerance = 1.0e-4;  // absolute; values in (0.25, 0.75)
};

// Two MUFU (sine and cosine) from the same input, combined: two variable-latency waits in parallel.
struct MufuSinCos {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t) {
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
#ifdef __CUDA_ARCH__
      const float s = __sinf(x), c = __cosf(x);
#else
      const float s = std::sin(x), c = std::cos(x);
#endif
      x = fmaf(s, 0.25f, fmaf(c, 0.25f, 0.5f));
    }
    return x;
  }
  static constexpr double tolerance = 1.0e-4;  // absolute; values in (0, 1)
};

// A 3x hand-unrolled FP + integer loop (one counter per three steps).
struct Unrolled3 {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t) {
    std::uint32_t h = float_bits(x);
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      x = fmaf(x, 0.999f, 0.001f);
      h = h * 3u + 1u;
      x = fmaf(x, 0.999f, 0.001f);
      h ^= h >> 7;
      x = fmaf(x, 0.999f, 0.001f);
      h = h * 5u + i;
    }
    return x + static_cast<float>(h >> 20);
  }
  static constexpr double tolerance = 0.0;
};

// A dependent FFMA chain with one instruction predicated off at run time: `off` is 0, so the FMUL
// under `(i & off) != 0` never executes, but it is issued every iteration.
struct PredicatedOff {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t off) {
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      x = fmaf(x, 0.999f, 0.001f);
      if ((i & off) != 0) x = x * 0.5f;
      x = fmaf(x, 0.999f, 0.001f);
    }
    return x;
  }
  static constexpr double tolerance = 0.0;
};

// Eight dependent FFMA: a chain longer than the loop control (the FMA latency sets the period).
struct FmaChain8 {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t) {
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
#pragma unroll
      for (int j = 0; j < 8; ++j) x = fmaf(x, 0.999f, 0.001f);
    }
    return x;
  }
  static constexpr double tolerance = 0.0;
};

// An integer chain through the multiply-high and population count (other integer units).
struct IntMulHi {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t) {
    std::uint32_t h = float_bits(x) | 1u;
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
#ifdef __CUDA_ARCH__
      h = __umulhi(h, 0x9E3779B9u) + static_cast<std::uint32_t>(__popc(h)) + i;
#else
      h = static_cast<std::uint32_t>((static_cast<std::uint64_t>(h) * 0x9E3779B9u) >> 32) +
          static_cast<std::uint32_t>(__builtin_popcount(h)) + i;
#endif
    }
    return static_cast<float>(h >> 8);
  }
  static constexpr double tolerance = 0.0;
};

// Issue-port mixes added after the H200 run of 16108d7 (their predictions were recorded in docs/sass.md
// before any of them ran). Two independent FFMA chains, each step paired with two dependent integer ops
// (IMAD, LOP3/SHF): the paired FP32 FMA interleaved with integer ALU work that an earlier test found
// predicted short.
struct FmaPairInt {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t) {
    float a = x, b = x + 0.25f;
    std::uint32_t h = float_bits(x);
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      a = fmaf(a, 0.999f, 0.001f);
      b = fmaf(b, 0.998f, 0.002f);
      h = h * 0x2545F491u + i;
      h ^= h >> 13;
      a = fmaf(a, 0.999f, 0.001f);
      b = fmaf(b, 0.998f, 0.002f);
      h = h * 0x01000193u + 0x9E37u;
      h ^= h << 5;
    }
    return a + b + static_cast<float>(h >> 20);
  }
  static constexpr double tolerance = 0.0;
};

// One dependent FFMA chain and one dependent integer chain alternating one to one, four of each.
struct FmaIntAlternating {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t) {
    std::uint32_t h = float_bits(x);
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      x = fmaf(x, 0.999f, 0.001f);
      h = h * 3u + i;
      x = fmaf(x, 0.998f, 0.002f);
      h ^= h >> 7;
      x = fmaf(x, 0.999f, 0.001f);
      h = h * 5u + 1u;
      x = fmaf(x, 0.998f, 0.002f);
      h ^= h << 3;
    }
    return x + static_cast<float>(h >> 20);
  }
  static constexpr double tolerance = 0.0;
};

// Integer and float through the conversion unit: I2F of the low bits, an FFMA, F2I back into the
// integer chain (exact on the host: values below 2^16, conversion toward zero).
struct ConvertChain {
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, std::uint32_t) {
    std::uint32_t h = float_bits(x);
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      const float f = fmaf(static_cast<float>(h & 0xffffu), 0.5f, 3.0f);
      h = (h >> 1) + static_cast<std::uint32_t>(f) + i;
    }
    return static_cast<float>(h >> 8);
  }
  static constexpr double tolerance = 0.0;
};

}  // namespace divbench::validation
