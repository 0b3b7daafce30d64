// Lane-to-path maps: which of the k paths each lane of a warp takes, and how long each path is.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace divbench {

enum class LaneMap {
  modulo,      // path = lane % k
  contiguous,  // path = lane * k / 32: paths are runs of neighbouring lanes
  permuted,    // path = perm[lane] % k for a seeded random permutation
  unbalanced,  // modulo lanes; path 0 runs iters, paths 1..k-1 run iters / 8 (at least 1)
};

const std::vector<LaneMap>& all_lane_maps();
const char* lane_map_name(LaneMap m);
LaneMap parse_lane_map(const std::string& name);  // throws UsageError naming the valid maps

struct LaneAssignment {
  std::array<std::uint8_t, 32> path_of_lane{};
  std::array<std::uint32_t, 32> iters_of_path{};  // 0 for paths >= k
  std::uint32_t total_iters() const;              // sum over the k paths: the serialized work
};

// k in 1..32, iters >= 1. Every path 0..k-1 gets at least one lane.
LaneAssignment assign_lanes(LaneMap map, int k, std::uint32_t iters, std::uint64_t seed);

}  // namespace divbench
