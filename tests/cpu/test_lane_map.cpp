#include <gtest/gtest.h>

#include <set>

#include "divbench/core/errors.hpp"
#include "divbench/core/lane_map.hpp"
#include "harness/k_list.hpp"

using namespace divbench;

TEST(LaneMap, EveryMapUsesExactlyKPaths) {
  for (LaneMap m : all_lane_maps())
    for (int k = 1; k <= 32; ++k) {
      const auto a = assign_lanes(m, k, 1000, 7);
      std::set<int> used(a.path_of_lane.begin(), a.path_of_lane.end());
      EXPECT_EQ(static_cast<int>(used.size()), k) << lane_map_name(m) << " k=" << k;
      EXPECT_LT(*used.rbegin(), k);
      for (int p = k; p < 32; ++p) EXPECT_EQ(a.iters_of_path[p], 0u);
    }
}

TEST(LaneMap, ShapesOfTheMaps) {
  const auto mod = assign_lanes(LaneMap::modulo, 4, 10, 0);
  EXPECT_EQ(mod.path_of_lane[5], 1);
  const auto con = assign_lanes(LaneMap::contiguous, 4, 10, 0);
  EXPECT_EQ(con.path_of_lane[7], 0);
  EXPECT_EQ(con.path_of_lane[8], 1);
  EXPECT_EQ(con.path_of_lane[31], 3);
  const auto unb = assign_lanes(LaneMap::unbalanced, 4, 800, 0);
  EXPECT_EQ(unb.iters_of_path[0], 800u);
  EXPECT_EQ(unb.iters_of_path[1], 100u);
  EXPECT_EQ(unb.total_iters(), 1100u);
  EXPECT_EQ(assign_lanes(LaneMap::modulo, 4, 800, 0).total_iters(), 3200u);
}

TEST(LaneMap, PermutationIsSeeded) {
  const auto a = assign_lanes(LaneMap::permuted, 8, 1, 1);
  const auto b = assign_lanes(LaneMap::permuted, 8, 1, 1);
  const auto c = assign_lanes(LaneMap::permuted, 8, 1, 2);
  EXPECT_EQ(a.path_of_lane, b.path_of_lane);
  EXPECT_NE(a.path_of_lane, c.path_of_lane);
}

TEST(LaneMap, BadNamesAndArguments) {
  EXPECT_THROW(parse_lane_map("diagonal"), UsageError);
  EXPECT_THROW(assign_lanes(LaneMap::modulo, 0, 1, 0), std::invalid_argument);
  EXPECT_THROW(assign_lanes(LaneMap::modulo, 33, 1, 0), std::invalid_argument);
}

TEST(KList, RangesAndLists) {
  EXPECT_EQ(parse_k_list("1-4"), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(parse_k_list("1,2,4,8,16,32"), (std::vector<int>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(parse_k_list("8,1-2,8"), (std::vector<int>{1, 2, 8}));
  EXPECT_EQ(parse_k_list("1-32").size(), 32u);
}

TEST(KList, BadSpecs) {
  for (const char* bad : {"0", "33", "1-33", "4-2", "a", "1,,2", "1,", "", "-3", "2.5"})
    EXPECT_THROW(parse_k_list(bad), UsageError) << bad;
}

TEST(NList, ListsAndBadSpecs) {
  EXPECT_EQ(parse_n_list("10000,0,1000,3000"), (std::vector<std::uint32_t>{0, 1000, 3000, 10000}));
  EXPECT_EQ(parse_n_list("0-3"), (std::vector<std::uint32_t>{0, 1, 2, 3}));
  for (const char* bad : {"", "-1", "1,,2", ",1", "1e3", "100000001", "0-2000", "+5"})
    EXPECT_THROW(parse_n_list(bad), UsageError) << bad;
}
