// Lane groups of one warp: the lanes on one side of a two-sided branch, as a 32-bit mask. The
// order probe builds groups of g lanes at three positions; every probe names its groups' position
// with the same classification (group_position), so "low", "high" and "scattered" mean one thing
// across the order, producer/consumer, peer-wait and lock results.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace divbench {

enum class GroupPosition {
  low,        // lanes 0 .. g-1
  high,       // lanes 32-g .. 31
  scattered,  // the first g lanes of the fixed sequence (7 + 13 i) mod 32, i = 0, 1, ...
};

// The scattered sequence: 13 is odd, so i -> (7 + 13 i) mod 32 visits every lane once
// (7, 20, 1, 14, 27, 8, 21, 2, ...); lane 31 is its 25th entry and lane 0 its 30th, so a
// scattered group holds lane 31 from g = 25 on and lane 0 from g = 30 on.
inline constexpr int kScatterStart = 7;
inline constexpr int kScatterStride = 13;

const std::vector<GroupPosition>& all_group_positions();
const char* group_position_name(GroupPosition p);
// g in 1..31 (both sides of the branch non-empty); throws std::invalid_argument otherwise.
std::uint32_t group_mask(int g, GroupPosition p);

// Lanes of a mask, ascending; and the mask of a list of lanes (each 0..31).
std::vector<int> mask_lanes(std::uint32_t mask);
std::uint32_t lanes_mask(const std::vector<int>& lanes);
int mask_size(std::uint32_t mask);
bool mask_has_lane(std::uint32_t mask, int lane);
// "low" when the mask is lanes 0..g-1, "high" when it is lanes 32-g..31, "scattered" otherwise
// (the order probe's scattered groups, and any other set such as the even lanes).
std::string classify_group_position(std::uint32_t mask);

}  // namespace divbench
