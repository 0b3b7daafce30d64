// The predication and occupancy sweeps end to end on a real GPU, small: every point of each sweep's
// own plan runs (outputs verified bit for bit), then its own finalize; the summaries carry what the
// CPU tests check on synthetic points. Plus the predication kernels at every code placement and
// the empty kernel's launch overhead.
#include <gtest/gtest.h>

#include <cmath>

#include "divbench/cuda/device_info.hpp"
#include "gpu_fixture.hpp"
#include "experiments/occupancy/launcher.hpp"
#include "experiments/predication/launcher.hpp"
#include "harness/experiment.hpp"
#include "harness/timed_point.hpp"

using namespace divbench;

namespace {

using test::device;

ResultRecord run_sweep(const std::string& name, RunOptions o) { return test::run_experiment("sweep", name, std::move(o)); }

RunOptions small(std::initializer_list<std::string> given) {
  RunOptions o;
  for (const auto& g : given) o.given.insert(g);
  o.reps = 3;
  o.warmup = 1;
  o.given.insert("--reps");
  o.given.insert("--warmup");
  return o;
}

}  // namespace

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
  RunOptions o = small({"--n", "--placements", "--k"});
  o.ns = {200, 2000};
  o.placements = 2;
  o.ks = {2};
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

TEST(OccupancyGpu, EmptyKernelLaunchOverhead) {
  const auto one = empty_kernel_launch_ms(LaunchShape{1, 32, 0}, 1, 5);
  ASSERT_EQ(one.size(), 5u);
  for (double ms : one) {
    EXPECT_TRUE(std::isfinite(ms));
    EXPECT_GT(ms, 0.0);
    EXPECT_LT(ms, 50.0);
  }
  const auto big = empty_kernel_launch_ms(LaunchShape{device().sm_count * 2, 1024, 64 * 1024}, 1, 3);
  EXPECT_EQ(big.size(), 3u);
}

TEST(OccupancyGpu, SweepPinsEverySmAndCorrectsForLaunchOverhead) {
  RunOptions o = small({"--iters", "--k"});
  o.iters = 2000;  // long enough that every shape's kernel outlasts the empty kernel (100 did not at 1 warp/SM)
  o.ks = {8};
  const ResultRecord r = run_sweep("occupancy", o);
  const json& s = r.summary;
  ASSERT_TRUE(s.contains("series"));
  EXPECT_FALSE(s.contains("shapes_without_penalty"));
  int per_sm = 0, waves = 0;
  for (const auto& p : s["series"]) {
    SCOPED_TRACE(p.dump());
    if (p["waves"].get<int>() == 1) {
      ++per_sm;
      EXPECT_TRUE(p["every_sm_at_target"].get<bool>());  // pinned: every SM held exactly w warps
    } else {
      ++waves;
    }
    EXPECT_GT(p["launch_overhead_ms_k"].get<double>(), 0);
    EXPECT_GT(p["region_penalty"].get<double>(), 1.0);
  }
  const int max_w = device().max_threads_per_sm / 32;
  EXPECT_EQ(per_sm, static_cast<int>(std::ceil(std::log2(max_w))) + 1);  // 1, 2, 4, ... max
  EXPECT_EQ(waves, 2);
  EXPECT_GT(s["penalty_min"].get<double>(), 1.0);
  EXPECT_GT(s["launch_overhead_ms"].get<double>(), 0);
}
