// Bit casts between float and uint32 usable on host and device (memcpy is the portable form; nvcc
// and the host compiler both lower it to a register move).
#pragma once
#include <cstdint>
#include <cstring>

namespace divbench::bodies {

__host__ __device__ __forceinline__ std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// A 32-bit mix (murmur3 finalizer): spreads nearby inputs over the whole range.
__host__ __device__ __forceinline__ std::uint32_t mix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

}  // namespace divbench::bodies
