// Region differencing: full launch minus zero-work twin.
#include <gtest/gtest.h>

#include <stdexcept>

#include "divbench/cupti/region.hpp"

namespace divbench {
namespace {

MetricValues counts(double inst, double thread_inst) {
  return {{kMetricInst, inst}, {kMetricThreadInst, thread_inst}, {kMetricRatio, thread_inst / inst}};
}

// A k-way region of n warp instructions per path on top of a fixed converged overhead: the whole-kernel
// ratio is pulled towards 32 by the overhead, the region-only ratio is exactly 32/k.
TEST(RegionEfficiency, RecoversThirtyTwoOverK) {
  const double overhead = 57, per_path = 70000;
  for (int k : {1, 2, 4, 8, 16, 32}) {
    const MetricValues twin = counts(overhead, 32 * overhead);
    const MetricValues full = counts(overhead + k * per_path, 32 * overhead + k * per_path * (32.0 / k));
    const RegionEfficiency r = region_efficiency(full, twin);
    ASSERT_TRUE(r.ratio.has_value()) << r.why;
    EXPECT_DOUBLE_EQ(*r.ratio, 32.0 / k) << "k=" << k;
    EXPECT_DOUBLE_EQ(r.inst, k * per_path);
    if (k > 1) {
      EXPECT_GT(full.at(kMetricRatio), 32.0 / k);  // whole kernel is biased, region is not
    }
  }
}

TEST(RegionEfficiency, NoRatioWhenTwinIsNotSmaller) {
  const RegionEfficiency same = region_efficiency(counts(100, 3200), counts(100, 3200));
  EXPECT_FALSE(same.ratio.has_value());
  EXPECT_FALSE(same.why.empty());
  const RegionEfficiency bigger = region_efficiency(counts(100, 3200), counts(120, 3840));
  EXPECT_FALSE(bigger.ratio.has_value());
  const RegionEfficiency neg_threads = region_efficiency(counts(200, 3200), counts(100, 3300));
  EXPECT_FALSE(neg_threads.ratio.has_value());
}

TEST(RegionEfficiency, MissingCounterThrows) {
  MetricValues full = counts(200, 6400);
  full.erase(kMetricThreadInst);
  EXPECT_THROW(region_efficiency(full, counts(100, 3200)), std::invalid_argument);
  EXPECT_THROW(region_efficiency(counts(200, 6400), MetricValues{{kMetricInst, 1}}), std::invalid_argument);
}

TEST(RegionEfficiency, Json) {
  const json ok = to_json(region_efficiency(counts(300, 3400), counts(100, 3200)));
  EXPECT_DOUBLE_EQ(ok["ratio"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(ok["inst"].get<double>(), 200);
  const json bad = to_json(region_efficiency(counts(100, 3200), counts(100, 3200)));
  EXPECT_TRUE(bad["ratio"].is_null());
  EXPECT_TRUE(bad.contains("why"));
}

// A predicated k-arm form keeps all 32 lanes active (thread_inst 32 per instruction) while only 32/k
// of them have a true guard predicate in the region: the predicated-on ratio tells them apart.
TEST(RegionEfficiency, PredicatedOnRatioSeesPredicatedOffLanes) {
  const double overhead = 40, region = 9000;
  for (int k : {1, 2, 4, 32}) {
    MetricValues twin = counts(overhead, 32 * overhead);
    twin[kMetricThreadInstPredOn] = 31 * overhead;
    MetricValues full = counts(overhead + region, 32 * (overhead + region));
    full[kMetricThreadInstPredOn] = 31 * overhead + region * 32.0 / k;
    const RegionEfficiency r = region_efficiency(full, twin);
    ASSERT_TRUE(r.ratio && r.pred_on_ratio);
    EXPECT_DOUBLE_EQ(*r.ratio, 32.0);
    EXPECT_DOUBLE_EQ(*r.pred_on_ratio, 32.0 / k) << "k=" << k;
    EXPECT_DOUBLE_EQ(*r.thread_inst_pred_on, region * 32.0 / k);
  }
}

TEST(RegionEfficiency, BranchUniformityOfTheRegion) {
  MetricValues twin = counts(100, 3200), full = counts(1100, 35200);
  twin[kMetricBranchTargets] = 10;
  twin[kMetricBranchTargetsUniform] = 8;
  full[kMetricBranchTargets] = 210;  // 200 more, 150 of them uniform
  full[kMetricBranchTargetsUniform] = 158;
  const RegionEfficiency r = region_efficiency(full, twin);
  ASSERT_TRUE(r.branch_uniform_pct.has_value());
  EXPECT_DOUBLE_EQ(*r.branch_uniform_pct, 75.0);
  EXPECT_DOUBLE_EQ(*r.branch_targets, 200);
  EXPECT_DOUBLE_EQ(*r.branch_targets_uniform, 150);
  const json j = to_json(r);
  EXPECT_DOUBLE_EQ(j["branch_uniform_pct"].get<double>(), 75.0);
  EXPECT_DOUBLE_EQ(j["branch_targets"].get<double>(), 200);
  EXPECT_DOUBLE_EQ(j["branch_targets_threads_uniform"].get<double>(), 150);
  EXPECT_FALSE(j.contains("pred_on_ratio"));  // not measured: not written

  // No branch in the region, or more uniform targets than targets: no percentage.
  full[kMetricBranchTargets] = 10;
  full[kMetricBranchTargetsUniform] = 8;
  EXPECT_FALSE(region_efficiency(full, twin).branch_uniform_pct.has_value());
  full[kMetricBranchTargets] = 20;
  full[kMetricBranchTargetsUniform] = 30;
  const RegionEfficiency odd = region_efficiency(full, twin);
  EXPECT_FALSE(odd.branch_uniform_pct.has_value());
  EXPECT_TRUE(to_json(odd)["branch_uniform_pct"].is_null());
}

TEST(RegionEfficiency, OptionalMetricsOnlyWhereBothLaunchesMeasuredThem) {
  MetricValues full = counts(300, 3400), twin = counts(100, 3200);
  full[kMetricThreadInstPredOn] = 3000;  // the twin lacks it
  const RegionEfficiency r = region_efficiency(full, twin);
  EXPECT_FALSE(r.thread_inst_pred_on.has_value());
  EXPECT_FALSE(r.pred_on_ratio.has_value());
  EXPECT_FALSE(to_json(r).contains("thread_inst_pred_on"));
  // A usable difference of warp instructions is needed for the predicated-on ratio too.
  MetricValues same = counts(100, 3200);
  same[kMetricThreadInstPredOn] = 3100;
  MetricValues same_twin = same;
  const json j = to_json(region_efficiency(same, same_twin));
  EXPECT_TRUE(j["pred_on_ratio"].is_null());
  EXPECT_DOUBLE_EQ(j["thread_inst_pred_on"].get<double>(), 0.0);
}

}  // namespace
}  // namespace divbench
