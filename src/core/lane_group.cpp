// Lane groups of one warp (lane_group.hpp).
#include "divbench/core/lane_group.hpp"

#include <stdexcept>

namespace divbench {

const std::vector<GroupPosition>& all_group_positions() {
  static const std::vector<GroupPosition> v{GroupPosition::low, GroupPosition::high, GroupPosition::scattered};
  return v;
}

const char* group_position_name(GroupPosition p) {
  switch (p) {
    case GroupPosition::low: return "low";
    case GroupPosition::high: return "high";
    case GroupPosition::scattered: return "scattered";
  }
  return "?";
}

std::uint32_t group_mask(int g, GroupPosition p) {
  if (g < 1 || g > 31) throw std::invalid_argument("group_mask: group size " + std::to_string(g) + " outside 1..31");
  const std::uint32_t run = (1u << g) - 1u;
  switch (p) {
    case GroupPosition::low: return run;
    case GroupPosition::high: return run << (32 - g);
    case GroupPosition::scattered: {
      std::uint32_t m = 0;
      for (int i = 0; i < g; ++i) m |= 1u << ((kScatterStart + kScatterStride * i) % 32);
      return m;
    }
  }
  throw std::invalid_argument("group_mask: unknown position");
}

std::vector<int> mask_lanes(std::uint32_t mask) {
  std::vector<int> v;
  for (int lane = 0; lane < 32; ++lane)
    if (mask_has_lane(mask, lane)) v.push_back(lane);
  return v;
}

std::uint32_t lanes_mask(const std::vector<int>& lanes) {
  std::uint32_t mask = 0;
  for (int lane : lanes) {
    if (lane < 0 || lane >= 32) throw std::invalid_argument("lanes_mask: lane " + std::to_string(lane) + " is not 0..31");
    mask |= 1u << lane;
  }
  return mask;
}

int mask_size(std::uint32_t mask) { return static_cast<int>(mask_lanes(mask).size()); }

bool mask_has_lane(std::uint32_t mask, int lane) { return lane >= 0 && lane < 32 && ((mask >> lane) & 1u) != 0; }

std::string classify_group_position(std::uint32_t mask) {
  const int g = mask_size(mask);
  if (g >= 1 && g <= 31) {
    if (mask == group_mask(g, GroupPosition::low)) return "low";
    if (mask == group_mask(g, GroupPosition::high)) return "high";
  }
  return "scattered";
}

}  // namespace divbench
