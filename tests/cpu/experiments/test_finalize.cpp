// Experiments' finalize() on synthetic points, no GPU: the fit per code placement and the spread of
// s over placements (kway). Predication and occupancy: test_predication_summary.cpp,
// test_occupancy_summary.cpp.
#include <gtest/gtest.h>

#include "harness/experiment.hpp"

using namespace divbench;

namespace {
TimedPoint point(double k, double cycles, int placement = 0, json extra = json::object()) {
  TimedPoint p;
  p.k = k;
  p.cycles.median = p.cycles.min = p.cycles.max = p.cycles.mean = cycles;
  p.cycles.n = 1;
  p.extra = std::move(extra);
  p.extra["placement"] = placement;
  return p;
}
ResultRecord finalize(const std::string& kind, const std::string& name, RunOptions o, std::vector<TimedPoint> pts) {
  ResultRecord r;
  r.points = std::move(pts);
  find_experiment(name, kind)->prepare(o).finalize(r);
  return r;
}
}  // namespace

TEST(Finalize, KwayFitsEveryPlacementAndReportsTheSpread) {
  std::vector<TimedPoint> pts;
  const double s[4] = {280000, 283000, 279000, 290000};
  for (int p = 0; p < 4; ++p)
    for (int k = 1; k <= 8; ++k) pts.push_back(point(k, s[p] * k + 700, p));
  const ResultRecord r = finalize("sweep", "kway", RunOptions{}, pts);
  ASSERT_TRUE(r.has_fit);
  ASSERT_EQ(r.fit_placements.size(), 4u);
  EXPECT_NEAR(r.fit_placements[3]["s"].get<double>(), 290000, 1e-6);
  EXPECT_EQ(r.summary["layout_placements"].get<int>(), 4);
  EXPECT_NEAR(r.summary["s_layout_min"].get<double>(), 279000, 1e-6);
  EXPECT_NEAR(r.summary["s_layout_max"].get<double>(), 290000, 1e-6);
  EXPECT_NEAR(r.summary["s_cycles_per_path"].get<double>(), 281500, 1e-6);  // median of four
  EXPECT_NEAR(r.summary["s_layout_spread_rel"].get<double>(), 11000.0 / 281500, 1e-12);
  EXPECT_TRUE(r.summary.contains("ratio_8_over_1"));
  EXPECT_FALSE(r.summary["any_throttled"].get<bool>());
}

TEST(Finalize, KwayOnePlacementHasNoSpread) {
  std::vector<TimedPoint> pts;
  for (int k : {1, 2, 4, 32}) pts.push_back(point(k, 1000.0 * k + 10));
  const ResultRecord r = finalize("sweep", "kway", RunOptions{}, pts);
  EXPECT_EQ(r.summary["layout_placements"].get<int>(), 1);
  EXPECT_EQ(r.summary["s_layout_spread_rel"].get<double>(), 0.0);
  EXPECT_NEAR(r.summary["ratio_32_over_1"].get<double>(), 32010.0 / 1010.0, 1e-12);
}
