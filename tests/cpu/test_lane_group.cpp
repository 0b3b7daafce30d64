// Lane groups (core/lane_group.hpp): a mask and its list of lanes convert both ways; the positions'
// groups have g lanes and classify as their position.
#include <gtest/gtest.h>

#include <stdexcept>

#include "divbench/core/lane_group.hpp"

using namespace divbench;

TEST(LaneGroup, MaskAndLanesRoundTripForEveryGroup) {
  for (GroupPosition pos : all_group_positions())
    for (int g = 1; g <= 31; ++g) {
      const std::uint32_t m = group_mask(g, pos);
      EXPECT_EQ(mask_size(m), g);
      EXPECT_EQ(lanes_mask(mask_lanes(m)), m) << group_position_name(pos) << " g=" << g;
      if (g > 1 && g < 31) EXPECT_EQ(classify_group_position(m), group_position_name(pos)) << g;
    }
  EXPECT_EQ(lanes_mask({}), 0u);
  EXPECT_EQ(lanes_mask({31, 0}), 0x80000001u);
  EXPECT_THROW(lanes_mask({32}), std::invalid_argument);
  EXPECT_THROW(lanes_mask({-1}), std::invalid_argument);
}
