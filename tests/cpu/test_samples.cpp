// Reduction of raw region samples: statistics over launches, effective clock, throttling flag.
#include <gtest/gtest.h>

#include "divbench/core/samples.hpp"

using namespace divbench;

namespace {
std::vector<RegionSample> steady(int reps, std::uint64_t cycles, double mhz) {
  std::vector<RegionSample> v;
  for (int i = 0; i < reps; ++i)
    v.push_back({cycles, static_cast<std::uint64_t>(cycles / mhz * 1000.0), 0, 0});
  return v;
}
}  // namespace

TEST(Samples, SteadyClockIsNotThrottled) {
  const auto p = to_timed_point(steady(201, 290332, 1980), 201, 1, 1, 12.5);
  EXPECT_EQ(p.launches, 201u);
  EXPECT_EQ(p.cycles.median, 290332);
  EXPECT_EQ(p.cycles.cv, 0);
  EXPECT_NEAR(p.clock_mhz, 1980, 1);
  EXPECT_FALSE(p.throttled);
  EXPECT_NEAR(p.region_ms, 201 * 290332 / 1980e3, 1e-3);
}

TEST(Samples, ClockDropMidPointIsThrottled) {
  auto v = steady(201, 290332, 1980);
  for (int i = 100; i < 201; ++i) v[i].ns = static_cast<std::uint64_t>(290332 / 1500.0 * 1000.0);  // 1500 MHz
  EXPECT_TRUE(to_timed_point(v, 201, 1, 1, 0).throttled);
}

TEST(Samples, TimerGranularityAloneIsNotThrottling) {
  // A short region (10 us) whose ns readings jitter by one 1-us tick: 10% spread, explained by the timer.
  auto v = steady(21, 19800, 1980);
  v[3].ns += 1000;
  EXPECT_FALSE(to_timed_point(v, 21, 1, 1, 0).throttled);
}

TEST(Samples, PerLaunchMedianOverWarps) {
  // 3 warps per launch; the launch's value is the median warp.
  std::vector<RegionSample> v{{100, 50, 0, 0}, {300, 150, 1, 1}, {200, 100, 2, 2},
                              {110, 55, 0, 0}, {310, 155, 1, 1}, {210, 105, 2, 2}};
  const auto p = to_timed_point(v, 2, 3, 4, 0, Reduction::launch_median);
  EXPECT_DOUBLE_EQ(p.cycles.min, 200);
  EXPECT_DOUBLE_EQ(p.cycles.max, 210);
  EXPECT_EQ(p.cycles.n, 2u);
  EXPECT_DOUBLE_EQ(p.k, 4);
}

TEST(Samples, EverySampleCountsInWarpPerSmSampling) {
  // 3 warps per launch on 3 SMs, each warp an independent sample: statistics over all 6.
  std::vector<RegionSample> v{{100, 50, 7, 0}, {300, 150, 8, 1}, {200, 100, 9, 2},
                              {110, 55, 7, 0}, {310, 155, 8, 1}, {210, 105, 9, 2}};
  const auto p = to_timed_point(v, 2, 3, 4, 0, Reduction::each_sample);
  EXPECT_EQ(p.cycles.n, 6u);
  EXPECT_DOUBLE_EQ(p.cycles.min, 100);
  EXPECT_DOUBLE_EQ(p.cycles.max, 310);
  EXPECT_DOUBLE_EQ(p.cycles.median, 205);
  EXPECT_EQ(p.launches, 2u);
  // Raw samples kept in launch order, with their SMs.
  ASSERT_EQ(p.sample_cycles.size(), 6u);
  EXPECT_EQ(p.sample_cycles[4], 310u);
  EXPECT_EQ(p.sample_smid[5], 9u);
  // GPU region time: per launch the longest warp (the warps ran side by side): 300 + 310 cycles.
  EXPECT_NEAR(p.region_ms, 610.0 / (p.clock_mhz * 1e3), 1e-15);
}

TEST(Samples, LaunchesWhoseWarpsSharedAnSm) {
  std::vector<RegionSample> distinct{{1, 1, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 0}, {1, 1, 0, 1}};
  EXPECT_EQ(launches_with_shared_sm(distinct, 2, 2), 0u);
  std::vector<RegionSample> shared{{1, 1, 0, 0}, {1, 1, 1, 1}, {1, 1, 3, 0}, {1, 1, 3, 1}};
  EXPECT_EQ(launches_with_shared_sm(shared, 2, 2), 1u);
}

TEST(Samples, CountMismatchThrows) {
  EXPECT_THROW(to_timed_point(steady(3, 1, 1), 4, 1, 1, 0), std::invalid_argument);
}

TEST(Samples, ClockBracket) {
  auto p = to_timed_point(steady(5, 1000, 1980), 5, 1, 1, 0);
  apply_clock_bracket(p, 1980, 1975);
  EXPECT_FALSE(p.throttled);
  EXPECT_EQ(p.clock_before_mhz, 1980);
  apply_clock_bracket(p, 1980, 1500);
  EXPECT_TRUE(p.throttled);
}
