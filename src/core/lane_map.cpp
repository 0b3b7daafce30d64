#include "divbench/core/lane_map.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

#include "divbench/core/name_table.hpp"

namespace divbench {
namespace {
struct MapEntry {
  LaneMap value;
  const char* name;
};
constexpr MapEntry kMaps[] = {{LaneMap::modulo, "modulo"},
                              {LaneMap::contiguous, "contiguous"},
                              {LaneMap::permuted, "permuted"},
                              {LaneMap::unbalanced, "unbalanced"}};
}  // namespace

const std::vector<LaneMap>& all_lane_maps() { return table_values<kMaps>(); }

const char* lane_map_name(LaneMap m) { return table_name(kMaps, m); }

LaneMap parse_lane_map(const std::string& name) { return parse_table_name(kMaps, name, "--map: unknown lane map"); }

std::uint32_t LaneAssignment::total_iters() const {
  std::uint32_t s = 0;
  for (auto v : iters_of_path) s += v;
  return s;
}

LaneAssignment assign_lanes(LaneMap map, int k, std::uint32_t iters, std::uint64_t seed) {
  if (k < 1 || k > 32) throw std::invalid_argument("assign_lanes: k outside 1..32");
  if (iters < 1) throw std::invalid_argument("assign_lanes: iters must be >= 1");
  LaneAssignment a;
  std::array<int, 32> perm;
  std::iota(perm.begin(), perm.end(), 0);
  if (map == LaneMap::permuted) {
    std::mt19937_64 rng(seed ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(k)));
    std::shuffle(perm.begin(), perm.end(), rng);
  }
  for (int lane = 0; lane < 32; ++lane) {
    int path = 0;
    switch (map) {
      case LaneMap::contiguous: path = lane * k / 32; break;
      case LaneMap::permuted: path = perm[lane] % k; break;
      case LaneMap::modulo:
      case LaneMap::unbalanced: path = lane % k; break;
    }
    a.path_of_lane[lane] = static_cast<std::uint8_t>(path);
  }
  for (int p = 0; p < k; ++p)
    a.iters_of_path[p] = (map == LaneMap::unbalanced && p > 0) ? std::max<std::uint32_t>(1, iters / 8) : iters;
  return a;
}

}  // namespace divbench
