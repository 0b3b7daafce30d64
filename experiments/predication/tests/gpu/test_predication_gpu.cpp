// The predication kernels and sweep on a real GPU, small: every variant verifies bit for bit at every
// code placement, and the sweep runs end to end through its own plan and finalize.
#include <gtest/gtest.h>

#include <cmath>

#include "experiments/predication/launcher.hpp"
#include "harness/timed_point.hpp"
#include "tests/gpu/gpu_fixture.hpp"

namespace divbench {
namespace {

using namespace test;

TEST(Predication, EveryVariantVerifies) {
  struct V {
    PredVariant v;
    int arms;
  };
  std::vector<V> vs{{PredVariant::single, 1}, {PredVariant::branchy, 2}};
  for (int a : predicated_arm_counts()) vs.push_back({PredVariant::predicated, a});
  for (const auto& v : vs) {
    SCOPED_TRACE(std::string(pred_variant_name(v.v)) + " arms=" + std::to_string(v.arms));
    EXPECT_NO_THROW(run_small(predication_timed_kernel(v.v, v.arms, 40), LaunchShape{2, 64, 0}));  // bit-exact check
  }
}

TEST(PredicationGpu, EveryVariantAtEveryPlacementVerifies) {
  TimedRun run;
  run.timing.reps = 2;
  run.timing.warmup = 1;
  run.timing.sampling = Sampling::single;
  run.shape = LaunchShape{2, 64, 0};
  std::vector<std::pair<PredVariant, int>> vs{{PredVariant::single, 1}, {PredVariant::branchy, 2}};
  for (int a : predicated_arm_counts()) vs.push_back({PredVariant::predicated, a});
  for (int placement = 0; placement < kPlacements; ++placement)
    for (const auto& [v, arms] : vs) {
      SCOPED_TRACE(std::string(pred_variant_name(v)) + " arms=" + std::to_string(arms) + " placement " +
                   std::to_string(placement));
      EXPECT_NO_THROW(run_timed_point(predication_timed_kernel(v, arms, 30, placement), run, device(), arms));
    }
}

TEST(PredicationGpu, SweepSummaryFromPerIterationCosts) {
  CommandLine o = small_options();
  o.set("--n", "200,2000");
  o.set("--placements", "2");
  o.set("--k", "2");
  const ResultRecord r = run_sweep("predication", o);
  EXPECT_EQ(r.points.size(), 2u * 2u * 4u);  // placements x n x (single, branchy, predicated 1 and 2)
  const json& s = r.summary;
  // Two serialized arms cost twice one arm per iteration; the fixed costs cancel in the difference.
  EXPECT_NEAR(s["ratio_branchy_over_single"].get<double>(), 2.0, 0.2);
  EXPECT_LE(s["ratio_branchy_over_single_min"].get<double>(), s["ratio_branchy_over_single_max"].get<double>());
  EXPECT_GT(s["ratio_predicated_over_single"].get<double>(), 0.5);
  EXPECT_TRUE(s["predicated_differs_from_single_beyond_placement_spread"].is_boolean());
  for (const auto& row : s["variants"]) EXPECT_GT(row["cycles_per_iter"]["min"].get<double>(), 0) << row.dump();
}

}  // namespace
}  // namespace divbench
