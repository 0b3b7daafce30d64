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

}  // namespace
}  // namespace divbench
