// The k-way point runner on a real GPU: verified output, sane statistics, linear cost.
#include <gtest/gtest.h>

#include "divbench/core/fit.hpp"
#include "divbench/cuda/device_info.hpp"
#include "harness/kway_point.hpp"

using namespace divbench;

namespace {
PointResult run_k(int k, LaneMap map = LaneMap::modulo, std::uint32_t iters = 500) {
  KwayPointSpec s;
  s.k = k;
  s.lanes = assign_lanes(map, k, iters, 1);
  s.plan.warmup = 2;
  s.plan.reps = 21;
  return run_kway_point(s);
}
}  // namespace

TEST(KwayGpu, DeviceInfoIsComplete) {
  const DeviceRecord d = query_device(0);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.sm_clock_khz, 0);
  EXPECT_GT(d.measured_sm_clock_mhz, 100);
}

TEST(KwayGpu, PointIsVerifiedAndComplete) {
  const PointResult r = run_k(4);
  ASSERT_TRUE(r.timed);
  EXPECT_EQ(r.point.launches, 21u);
  EXPECT_GT(r.point.cycles.median, 0);
  EXPECT_LE(r.point.cycles.min, r.point.cycles.median);
  EXPECT_GE(r.point.cycles.max, r.point.cycles.median);
  EXPECT_TRUE(r.point.extra.value("verified", false));
  EXPECT_GT(r.point.clock_mhz, 100);
}

TEST(KwayGpu, CostIsLinearInK) {
  std::vector<double> x, y;
  for (int k : {1, 2, 4, 8, 16, 32}) {
    x.push_back(k);
    y.push_back(run_k(k).point.cycles.median);
  }
  const LinearFit f = fit_linear(x, y);
  EXPECT_GT(f.r2, 0.999);
  EXPECT_GT(y.back() / y.front(), 28.0);
  EXPECT_LT(y.back() / y.front(), 33.0);
}

TEST(KwayGpu, UnbalancedCostFollowsSummedPathLength) {
  // k = 8, path 0 runs iters, the other 7 run iters/8: about (1 + 7/8) single-path times.
  const double one = run_k(1, LaneMap::modulo, 800).point.cycles.median;
  const double unb = run_k(8, LaneMap::unbalanced, 800).point.cycles.median;
  EXPECT_NEAR(unb / one, 1.0 + 7.0 / 8.0, 0.15);
}
