// One timed region, as a kernel writes it: shared by device code and host code.
#pragma once
#include <cstdint>

namespace divbench {

struct RegionSample {
  std::uint64_t cycles;  // clock64() delta over the region (SM cycles)
  std::uint64_t ns;      // %globaltimer delta bracketing the region (ns)
  std::uint32_t smid;    // %smid of the warp
  std::uint32_t warp;    // global warp index within the launch
};

}  // namespace divbench
