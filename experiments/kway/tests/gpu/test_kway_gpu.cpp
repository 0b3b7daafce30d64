// The k-way kernel and the timed-point runner on a real GPU, small: every body and lane map verifies
// against its host reference, the point is complete, the cost is linear in k, both sampling modes,
// every code placement.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>

#include "divbench/core/fit.hpp"
#include "experiments/kway/launcher.hpp"
#include "harness/timed_point.hpp"
#include "tests/gpu/gpu_fixture.hpp"

namespace divbench {
namespace {

using namespace test;

PointResult run_k(int k, LaneMap map = LaneMap::modulo, std::uint32_t iters = 500,
                  Sampling sampling = Sampling::single, int placement = 0, int reps = 21) {
  const KwayParams p = make_kway_params(Body::fma_chain, k, assign_lanes(map, k, iters, 1));
  TimedRun run;
  run.timing.reps = reps;
  run.timing.warmup = 2;
  run.timing.sampling = sampling;
  return run_timed_point(kway_timed_kernel(Body::fma_chain, p, placement), run, device(), k);
}

TEST(KwayBodies, EveryBodyVerifiesAtSeveralK) {
  for (Body b : all_bodies())
    for (int k : {1, 2, 7, 32}) {
      SCOPED_TRACE(std::string(body_name(b)) + " k=" + std::to_string(k));
      const PointResult r = run_small(small_kway_kernel(b, k, LaneMap::modulo), LaunchShape{2, 64, 0});  // throws on a mismatch
      EXPECT_TRUE(r.point.extra["verified"].get<bool>());
      EXPECT_EQ(r.point.launches, 3u);
      EXPECT_GT(r.point.cycles.median, 0);
    }
}

TEST(KwayBodies, BodiesDiffer) {
  // Sanity of the references themselves: different bodies give different lane results.
  const LaneAssignment lanes = assign_lanes(LaneMap::modulo, 2, 50, 7);
  const KwayParams p = make_kway_params(Body::fma_chain, 2, lanes);
  const float a = kway_reference(Body::fma_chain, p, 3);
  EXPECT_NE(a, kway_reference(Body::fma_indep, p, 3));
  EXPECT_NE(a, kway_reference(Body::int_alu, p, 3));
  EXPECT_TRUE(std::isfinite(kway_reference(Body::sfu, p, 3)));
  EXPECT_THROW(kway_reference(Body::mem_divergent, p, 3), std::invalid_argument);  // table_words of another body
  EXPECT_TRUE(std::isfinite(kway_reference(Body::mem_divergent, make_kway_params(Body::mem_divergent, 2, lanes), 3)));
}

TEST(KwayMaps, EveryMapVerifies) {
  for (LaneMap m : all_lane_maps()) {
    SCOPED_TRACE(lane_map_name(m));
    EXPECT_NO_THROW(run_small(small_kway_kernel(Body::fma_chain, 5, m), std::nullopt));
  }
}

TEST(KwayGpu, DeviceInfoIsComplete) {
  const DeviceRecord& d = device();
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.sm_clock_khz, 0);
  EXPECT_GT(d.measured_sm_clock_mhz, 100);
}

TEST(KwayGpu, PointIsVerifiedAndComplete) {
  const PointResult r = run_k(4);
  ASSERT_TRUE(r.timed);
  EXPECT_EQ(r.point.launches, 21u);
  EXPECT_EQ(r.point.cycles.n, 21u);
  EXPECT_EQ(r.point.sample_cycles.size(), 21u);
  EXPECT_GT(r.point.cycles.median, 0);
  EXPECT_LE(r.point.cycles.min, r.point.cycles.median);
  EXPECT_GE(r.point.cycles.max, r.point.cycles.median);
  EXPECT_TRUE(r.point.extra.value("verified", false));
  EXPECT_GT(r.point.clock_mhz, 100);
  EXPECT_GT(r.point.gpu_ms, 0);
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

TEST(KwayGpu, WarpPerSmSamplesEverySmOncePerLaunch) {
  const int sms = device().sm_count;
  const PointResult r = run_k(8, LaneMap::modulo, 500, Sampling::warp_per_sm, 0, sms + 1);  // two launches
  EXPECT_EQ(r.point.launches, 2u);
  EXPECT_EQ(r.point.cycles.n, static_cast<std::size_t>(2 * sms));
  EXPECT_EQ(r.point.extra["launches_with_shared_sm"].get<int>(), 0);
  EXPECT_EQ(r.point.extra["sms_distinct"].get<int>(), sms);
  std::set<std::uint32_t> first(r.point.sample_smid.begin(), r.point.sample_smid.begin() + sms);
  EXPECT_EQ(first.size(), static_cast<std::size_t>(sms));
  // Same median as one warp per launch, within a few cycles (compute body, no shared memory traffic).
  const double single = run_k(8).point.cycles.median;
  EXPECT_NEAR(r.point.cycles.median / single, 1.0, 1e-3);
}

TEST(KwayGpu, EveryPlacementVerifies) {
  for (int p = 0; p < kPlacements; ++p) {
    SCOPED_TRACE("placement " + std::to_string(p));
    const PointResult r = run_k(3, LaneMap::modulo, 200, Sampling::single, p, 5);
    EXPECT_EQ(r.point.extra["placement"].get<int>(), p);
  }
  EXPECT_THROW(run_k(3, LaneMap::modulo, 200, Sampling::single, kPlacements, 5), std::invalid_argument);
}

}  // namespace
}  // namespace divbench
