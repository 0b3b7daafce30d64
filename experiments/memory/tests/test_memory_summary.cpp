// The memory probe without a GPU: finalize() differences the two load counts per level and lanes, and
// fits each level's line a = fixed + per_sector x lanes.
#include <gtest/gtest.h>

#include "tests/cpu/experiments/synthetic_points.hpp"

using namespace divbench;
using namespace divbench::synthetic;

TEST(Finalize, MemoryCyclesPerLoadAndEachLevelsLine) {
  // T(n) = (700 + 9 lanes) n + 500 at dram, (250 + 6 lanes) n + 400 at l2: the lines come back exactly.
  std::vector<TimedPoint> pts;
  for (const char* level : {"dram", "l2"})
    for (int lanes : {1, 2, 4, 8, 12, 16, 20, 24, 28, 32})
      for (std::uint32_t n : {64u, 320u}) {
        const bool dram = std::string(level) == "dram";
        const double a = dram ? 700 + 9.0 * lanes : 250 + 6.0 * lanes;
        pts.push_back(point(1, a * n + (dram ? 500 : 400), 0, {{"level", level}, {"lanes", lanes}, {"n", n}}));
        pts.back().axes.erase("k");
        pts.back().axes.erase("placement");
      }
  const ResultRecord r = finalize("sweep", "memory", CommandLine{}, pts);
  const json& levels = r.summary["levels"];
  ASSERT_EQ(levels.size(), 3u);  // dram, l2, l1 (no points: no line)
  EXPECT_EQ(levels[0]["level"], "dram");
  EXPECT_NEAR(levels[0]["fixed_cycles"].get<double>(), 700, 1e-6);
  EXPECT_NEAR(levels[0]["cycles_per_sector"].get<double>(), 9, 1e-9);
  EXPECT_NEAR(levels[0]["r2"].get<double>(), 1, 1e-12);
  ASSERT_EQ(levels[0]["per_lanes"].size(), 10u);
  EXPECT_NEAR(levels[0]["per_lanes"][3]["cycles_per_load"].get<double>(), 700 + 72, 1e-9);
  EXPECT_NEAR(levels[1]["cycles_per_sector"].get<double>(), 6, 1e-9);
  EXPECT_FALSE(levels[2].contains("fixed_cycles"));
  // Points without warps_per_sm count as one warp per SM; more warps go to summary.occupancy.
  EXPECT_TRUE(r.summary["occupancy"].is_array());
}

TEST(Finalize, MemoryCurvesPerWarpsPerSm) {
  // At 4 warps per SM the DRAM pass costs 1000 + 20 lanes: summary.occupancy, not summary.levels.
  std::vector<TimedPoint> pts;
  for (int warps : {1, 4})
    for (int lanes : {1, 32})
      for (std::uint32_t n : {64u, 320u}) {
        const double a = warps == 1 ? 700 + 9.0 * lanes : 1000 + 20.0 * lanes;
        pts.push_back(point(1, a * n + 500, 0, {{"level", "dram"}, {"lanes", lanes}, {"n", n}, {"warps_per_sm", warps}}));
        pts.back().axes.erase("k");
        pts.back().axes.erase("placement");
      }
  const ResultRecord r = finalize("sweep", "memory", CommandLine{}, pts);
  EXPECT_NEAR(r.summary["levels"][0]["per_lanes"][1]["cycles_per_load"].get<double>(), 700 + 9 * 32, 1e-9);
  const json& occ = r.summary["occupancy"];
  ASSERT_EQ(occ.size(), 2u);  // 4 and 16 (no points at 16: no line)
  EXPECT_EQ(occ[0]["warps_per_sm"], 4);
  EXPECT_NEAR(occ[0]["levels"][0]["per_lanes"][1]["cycles_per_load"].get<double>(), 1000 + 20 * 32, 1e-9);
  EXPECT_NEAR(occ[0]["levels"][0]["cycles_per_sector"].get<double>(), 20, 1e-9);
}
