// Work body: dependent loads from a table, every lane (and every path) at its own cache line.
// Each iteration loads table[j], folds it into x with an FMA and derives the next index from x, so
// the loads form a latency chain and one load instruction touches up to 32 different lines (memory
// divergence) even at k = 1. Comparing it with FmaChain separates memory divergence from path
// serialization. Integer index arithmetic and fmaf only: host and device agree bit for bit.
#pragma once
#include <cmath>
#include <cstdint>
#ifndef __CUDACC_RTC__
#include <vector>
#endif

#include "bits.cuh"

namespace divbench::bodies {

struct MemDivergent {
  // words must be a power of two (table_words); table holds small non-negative floats.
  template <int P>
  __host__ __device__ __forceinline__ static float run(float x, std::uint32_t iters, const float* table,
                                                       std::uint32_t words) {
    const float a = 0.9990f - 1.0e-5f * static_cast<float>(P);
    const std::uint32_t mask = words - 1u;
    std::uint32_t j = mix32(float_bits(x) + 0x9E3779B9u * static_cast<std::uint32_t>(P + 1)) & mask;
#pragma unroll 1
    for (std::uint32_t i = 0; i < iters; ++i) {
      x = fmaf(x, a, table[j]);
      j = (j * 1664525u + 1013904223u + float_bits(x)) & mask;
    }
    return x;
  }
  static constexpr double tolerance = 0.0;
  // 2^21 words (8 MiB): larger than L1, inside the H200's L2; lanes land on distinct lines.
  static constexpr std::uint32_t table_words = 1u << 21;
#ifndef __CUDACC_RTC__  // host only (NVRTC, tests/sass/nvrtc/, compiles the device code)
  static std::vector<float> make_table(std::uint64_t seed) {
    std::vector<float> t(table_words);
    std::uint64_t s = seed | 1u;
    for (auto& v : t) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      v = static_cast<float>(static_cast<std::uint32_t>(s >> 40)) * 0x1p-34f;  // < 2^-10, exact
    }
    return t;
  }
#endif
};

}  // namespace divbench::bodies
