// The memory rule's pieces without a GPU (model/memory_cost.hpp): the probe's curve between its
// measured lanes, the level nearest a measured pass, a gather's pass scaling with its lanes and a
// coalesced load's not, the levels read from a --sweep memory result and carried by the constants.
#include <gtest/gtest.h>

#include "divbench/core/errors.hpp"
#include "divbench/model/loop_cost.hpp"
#include "divbench/model/memory_cost.hpp"

using namespace divbench;
using namespace divbench::model;

namespace {

// Curves shaped like the probe's: fast growth over the first lanes, slow after.
const std::vector<MemoryLevelCost> kLevels{{"dram", 1, {1, 8, 16, 32}, {550, 800, 880, 920}},
                                           {"l2", 1, {1, 8, 16, 32}, {260, 316, 328, 349}},
                                           {"l1", 1, {1, 8, 16, 32}, {39, 42.7, 46.4, 52.5}}};

json memory_result(json per_lanes) {
  return json{{"experiment", "memory"},
              {"summary", {{"levels", json::array({json{{"level", "dram"}, {"per_lanes", std::move(per_lanes)}}})}}}};
}

}  // namespace

TEST(MemoryCost, CurveIsPiecewiseLinearAndFlatBeyondItsEnds) {
  const MemoryLevelCost& d = kLevels[0];
  EXPECT_DOUBLE_EQ(d.at(8), 800);
  EXPECT_DOUBLE_EQ(d.at(12), 840);
  EXPECT_DOUBLE_EQ(d.at(0.5), 550);
  EXPECT_DOUBLE_EQ(d.at(64), 920);
}

TEST(MemoryCost, NearestLevelAndAGathersRatio) {
  // 16 lanes, 16 sectors a pass, 870 cycles measured: DRAM's 880 is nearest.
  const LoadScaling s = scale_load(kLevels, 870, 16, 16);
  ASSERT_NE(s.level, nullptr);
  EXPECT_EQ(s.level->level, "dram");
  EXPECT_TRUE(s.gather);
  EXPECT_DOUBLE_EQ(s.ratio(16, 32), 920.0 / 880.0);  // a full pass costs this much more
  EXPECT_DOUBLE_EQ(s.ratio(16, 16), 1.0);
  // The same at 330 cycles: the L2.
  EXPECT_EQ(scale_load(kLevels, 330, 16, 16).level->level, "l2");
}

TEST(MemoryCost, CurvesOfTheNearestWarpsPerSm) {
  // The same DRAM level at 16 warps per SM, where a pass grows about with its sectors.
  std::vector<MemoryLevelCost> levels = kLevels;
  levels.push_back({"dram", 16, {1, 8, 16, 32}, {565, 934, 1560, 3360}});
  EXPECT_EQ(scale_load(levels, 870, 16, 16, 1).level->warps_per_sm, 1);
  EXPECT_EQ(scale_load(levels, 870, 16, 16, 3).level->warps_per_sm, 1);    // 3 is nearer 1 than 16 by ratio
  EXPECT_EQ(scale_load(levels, 1500, 16, 16, 8).level->warps_per_sm, 16);  // 8 is nearer 16
  const LoadScaling s = scale_load(levels, 1500, 16, 16, 40);
  EXPECT_EQ(s.level->level, "dram");
  EXPECT_DOUBLE_EQ(s.ratio(16, 32), 3360.0 / 1560.0);
}

TEST(MemoryCost, CoalescedLoadDoesNotScale) {
  // 16 lanes sharing 2 sectors a pass: a fuller pass fetches about as much; ratio 1 (whole passes lost).
  const LoadScaling s = scale_load(kLevels, 560, 2, 16);
  ASSERT_NE(s.level, nullptr);
  EXPECT_FALSE(s.gather);
  EXPECT_DOUBLE_EQ(s.ratio(16, 32), 1.0);
  // At the threshold: 12 sectors for 16 lanes (0.75 a lane) is a gather, 11 is not.
  EXPECT_TRUE(scale_load(kLevels, 800, 12, 16).gather);
  EXPECT_FALSE(scale_load(kLevels, 800, 11, 16).gather);
  // Nothing to scale with: no levels, no sectors.
  EXPECT_EQ(scale_load({}, 400, 32, 32).level, nullptr);
  EXPECT_DOUBLE_EQ(scale_load({}, 400, 32, 32).ratio(16, 32), 1.0);
  EXPECT_EQ(scale_load(kLevels, 400, 0, 32).level, nullptr);
}

TEST(MemoryCost, LevelsFromAMemoryResultAndRefusals) {
  const auto v = memory_levels_from_result(
      memory_result(json::array({json{{"lanes", 1}, {"cycles_per_load", 546.3}}, json{{"lanes", 32}, {"cycles_per_load", 922.7}}})), "m.json");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].level, "dram");
  EXPECT_EQ(v[0].warps_per_sm, 1);
  EXPECT_DOUBLE_EQ(v[0].at(32), 922.7);
  // summary.occupancy's curves come with their warps per SM.
  json with_occ = memory_result(json::array({json{{"lanes", 1}, {"cycles_per_load", 546.3}}, json{{"lanes", 32}, {"cycles_per_load", 922.7}}}));
  with_occ["summary"]["occupancy"] = json::array({json{{"warps_per_sm", 16}, {"levels", with_occ["summary"]["levels"]}}});
  const auto w = memory_levels_from_result(with_occ, "m.json");
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[1].warps_per_sm, 16);
  with_occ["summary"]["occupancy"][0]["warps_per_sm"] = 0;
  EXPECT_THROW(memory_levels_from_result(with_occ, "m"), UsageError);
  EXPECT_THROW(memory_levels_from_result(json{{"experiment", "loops"}, {"summary", {{"levels", json::array()}}}}, "m"), UsageError);
  // One measured lanes count is no curve; lanes out of 1..32, a negative or non-numeric time, lanes not ascending.
  EXPECT_THROW(memory_levels_from_result(memory_result(json::array({json{{"lanes", 1}, {"cycles_per_load", 546.3}}})), "m"), UsageError);
  EXPECT_THROW(memory_levels_from_result(memory_result(json::array({json{{"lanes", 0}, {"cycles_per_load", 5}},
                                                                    json{{"lanes", 2}, {"cycles_per_load", 6}}})), "m"),
               UsageError);
  EXPECT_THROW(memory_levels_from_result(memory_result(json::array({json{{"lanes", 1}, {"cycles_per_load", -5}},
                                                                    json{{"lanes", 2}, {"cycles_per_load", 6}}})), "m"),
               UsageError);
  EXPECT_THROW(memory_levels_from_result(memory_result(json::array({json{{"lanes", 1}, {"cycles_per_load", "5"}},
                                                                    json{{"lanes", 2}, {"cycles_per_load", 6}}})), "m"),
               UsageError);
  EXPECT_THROW(memory_levels_from_result(memory_result(json::array({json{{"lanes", 4}, {"cycles_per_load", 5}},
                                                                    json{{"lanes", 2}, {"cycles_per_load", 6}}})), "m"),
               UsageError);
}

TEST(MemoryCost, ConstantsCarryTheLevelsThroughTheirJson) {
  json j{{"schema", kLoopCostSchema}, {"sm", 90}, {"taken_branch_cycles", 5.0}, {"variable_latency_cycles", 17.0},
         {"source", json::object()}, {"memory_levels", memory_levels_json(kLevels)}, {"memory_source", {{"file", "m.json"}}}};
  const CostConstants c = constants_from_json(j, "c.json");
  ASSERT_EQ(c.memory_levels.size(), 3u);
  EXPECT_EQ(c.memory_levels[1].level, "l2");
  EXPECT_DOUBLE_EQ(c.memory_levels[1].at(8), 316);
  EXPECT_EQ(c.memory_levels[1].warps_per_sm, 1);
  EXPECT_EQ(c.memory_source["file"], "m.json");
  j["memory_levels"][0]["cycles_per_load"][0] = -1e9;
  EXPECT_THROW(constants_from_json(j, "c.json"), UsageError);
  j.erase("memory_levels");
  EXPECT_TRUE(constants_from_json(j, "c.json").memory_levels.empty());  // older constants: no levels
}
