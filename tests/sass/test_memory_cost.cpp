// The memory rule's pieces without a GPU (model/memory_cost.hpp): the level nearest a measured pass,
// a gather's sectors kept out of the loss and a coalesced load's not, the levels read from a
// --sweep memory result and carried by the constants.
#include <gtest/gtest.h>

#include "divbench/core/errors.hpp"
#include "divbench/model/loop_cost.hpp"
#include "divbench/model/memory_cost.hpp"

using namespace divbench;
using namespace divbench::model;

namespace {

const std::vector<MemoryLevelCost> kLevels{{"dram", 700, 9}, {"l2", 250, 6}, {"l1", 40, 1}};

json memory_result(json levels) {
  return json{{"experiment", "memory"}, {"summary", {{"levels", std::move(levels)}}}};
}

}  // namespace

TEST(MemoryCost, NearestLevelAndAGathersSectorPart) {
  // 16 lanes, 16 sectors per pass: DRAM's line gives 700 + 144 = 844, nearest a measured 850.
  const LoadSplit s = split_load_pass(kLevels, 850, 16, 16);
  ASSERT_NE(s.level, nullptr);
  EXPECT_EQ(s.level->level, "dram");
  EXPECT_TRUE(s.gather);
  EXPECT_DOUBLE_EQ(s.sector_cycles, 9 * 16);
  // The same sectors at 300 cycles a pass: the L2's line (250 + 96 = 346) is nearest.
  const LoadSplit l2 = split_load_pass(kLevels, 300, 16, 16);
  EXPECT_EQ(l2.level->level, "l2");
  EXPECT_DOUBLE_EQ(l2.sector_cycles, 6 * 16);
}

TEST(MemoryCost, CoalescedLoadKeepsItsWholePassInTheLoss) {
  // 16 lanes sharing 2 sectors a pass (contiguous words): not a gather, nothing split off.
  const LoadSplit s = split_load_pass(kLevels, 720, 2, 16);
  ASSERT_NE(s.level, nullptr);
  EXPECT_FALSE(s.gather);
  EXPECT_DOUBLE_EQ(s.sector_cycles, 0);
  // At the threshold: 12 sectors for 16 lanes (0.75 per lane) is a gather, 11 is not.
  EXPECT_TRUE(split_load_pass(kLevels, 800, 12, 16).gather);
  EXPECT_FALSE(split_load_pass(kLevels, 800, 11, 16).gather);
}

TEST(MemoryCost, SectorPartNeverExceedsThePassOrGoesNegative) {
  EXPECT_DOUBLE_EQ(split_load_pass(kLevels, 50, 32, 32).sector_cycles, 32);  // l1: 1 x 32, within the pass
  EXPECT_DOUBLE_EQ(split_load_pass({{"x", 0, 100}}, 50, 32, 32).sector_cycles, 50);  // capped at the pass
  EXPECT_DOUBLE_EQ(split_load_pass({{"x", 500, -3}}, 400, 32, 32).sector_cycles, 0);  // a negative slope: 0
  EXPECT_EQ(split_load_pass({}, 400, 32, 32).level, nullptr);                        // no levels: no split
  EXPECT_EQ(split_load_pass(kLevels, 400, 0, 32).level, nullptr);                    // no sectors counted
}

TEST(MemoryCost, LevelsFromAMemoryResultAndRefusals) {
  const auto v = memory_levels_from_result(
      memory_result(json::array({json{{"level", "dram"}, {"fixed_cycles", 712.5}, {"cycles_per_sector", 8.5}, {"per_lanes", json::array()}}})),
      "m.json");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].level, "dram");
  EXPECT_DOUBLE_EQ(v[0].fixed_cycles, 712.5);
  EXPECT_DOUBLE_EQ(v[0].cycles_per_sector, 8.5);
  EXPECT_THROW(memory_levels_from_result(json{{"experiment", "loops"}, {"summary", {{"levels", json::array()}}}}, "m"), UsageError);
  EXPECT_THROW(memory_levels_from_result(memory_result(json::array()), "m"), UsageError);
  // A level without its fitted line (fewer than two lanes measured), or a line out of range.
  EXPECT_THROW(memory_levels_from_result(memory_result(json::array({json{{"level", "l1"}, {"per_lanes", json::array()}}})), "m"),
               UsageError);
  EXPECT_THROW(memory_levels_from_result(
                   memory_result(json::array({json{{"level", "l1"}, {"fixed_cycles", 1e308}, {"cycles_per_sector", 1}}})), "m"),
               UsageError);
  EXPECT_THROW(memory_levels_from_result(
                   memory_result(json::array({json{{"level", "l1"}, {"fixed_cycles", 40}, {"cycles_per_sector", "9"}}})), "m"),
               UsageError);
}

TEST(MemoryCost, ConstantsCarryTheLevelsThroughTheirJson) {
  json j{{"schema", kLoopCostSchema}, {"sm", 90}, {"taken_branch_cycles", 5.0}, {"variable_latency_cycles", 17.0},
         {"source", json::object()}, {"memory_levels", memory_levels_json(kLevels)}, {"memory_source", {{"file", "m.json"}}}};
  const CostConstants c = constants_from_json(j, "c.json");
  ASSERT_EQ(c.memory_levels.size(), 3u);
  EXPECT_EQ(c.memory_levels[1].level, "l2");
  EXPECT_DOUBLE_EQ(c.memory_levels[1].cycles_per_sector, 6);
  EXPECT_EQ(c.memory_source["file"], "m.json");
  j["memory_levels"][0]["cycles_per_sector"] = -1e9;
  EXPECT_THROW(constants_from_json(j, "c.json"), UsageError);
  j.erase("memory_levels");
  EXPECT_TRUE(constants_from_json(j, "c.json").memory_levels.empty());  // older constants: no levels
}
