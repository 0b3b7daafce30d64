// Experiments' finalize() on synthetic points, no GPU: the fit per code placement and the spread of
// s over placements (kway), the cost decomposition, the sampling comparison. Predication and
// occupancy: test_predication_summary.cpp, test_occupancy_summary.cpp.
#include <gtest/gtest.h>

#include "divbench/summary/cost_fit.hpp"
#include "harness/experiment.hpp"

using namespace divbench;

namespace {
// A point at (k, placement) and the other axes given; the harness stamps these as point.axes.
TimedPoint point(double k, double cycles, int placement = 0, json axes = json::object()) {
  TimedPoint p;
  p.k = k;
  p.cycles.median = p.cycles.min = p.cycles.max = p.cycles.mean = cycles;
  p.cycles.n = 1;
  p.axes = std::move(axes);
  p.axes["placement"] = placement;
  p.axes["k"] = static_cast<int>(k);
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

TEST(Finalize, CostRecoversABCPerPlacement) {
  // T(k, n) = k * (a*n + b) + c with a, b, c differing slightly by placement.
  std::vector<TimedPoint> pts;
  const double a[2] = {28.0, 29.0}, b[2] = {178, 170}, c[2] = {700, 720};
  for (int p = 0; p < 2; ++p)
    for (double n : {0.0, 1000.0, 3000.0, 10000.0})
      for (int k : {1, 2, 4, 8, 32})
        pts.push_back(point(k, k * (a[p] * n + b[p]) + c[p], p, {{"body", "fma_chain"}, {"n", static_cast<int>(n)}}));
  RunOptions o;
  o.given = {"--body", "--placements"};
  o.placements = 8;  // the points carry placements 0 and 1; finalize fits the placements it finds
  const ResultRecord r = finalize("sweep", "cost", o, pts);
  EXPECT_NEAR(r.summary["a_cycles_per_iter"].get<double>(), 28.5, 1e-6);
  EXPECT_NEAR(r.summary["a_cycles_per_iter_min"].get<double>(), 28.0, 1e-6);
  EXPECT_NEAR(r.summary["a_cycles_per_iter_max"].get<double>(), 29.0, 1e-6);
  EXPECT_NEAR(r.summary["b_cycles_per_path_min"].get<double>(), 170, 1e-5);
  EXPECT_NEAR(r.summary["c_cycles_max"].get<double>(), 720, 1e-4);
  EXPECT_NEAR(r.summary["r2"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(r.summary["b_direct"].get<double>(), 174, 1e-6);  // median of 178 and 170 from n = 0 alone
  ASSERT_EQ(r.summary["bodies"].size(), 1u);
  const json& body = r.summary["bodies"][0];
  EXPECT_EQ(body["body"], "fma_chain");
  EXPECT_NEAR(body["a"].get<double>(), 28.5, 1e-6);
  EXPECT_TRUE(body.contains("a_predicted"));
  EXPECT_EQ(body["placements"].size(), 2u);
}

TEST(Finalize, CostSplitsBIntoTheLoopOverPathsAndDivergenceByTheControl) {
  // Divergent b 180/184 by placement, the control's 163/165: b_divergence 17/19. a and c shared.
  std::vector<TimedPoint> pts;
  const double b[2] = {180, 184}, loop[2] = {163, 165};
  for (int i = 0; i < 2; ++i)
    for (double n : {0.0, 1000.0, 3000.0})
      for (int k : {1, 2, 4, 8}) {
        const json ax{{"body", "fma_chain"}, {"n", static_cast<int>(n)}};
        json div = ax, ctl = ax;
        div["region"] = "divergent";
        ctl["region"] = "control";
        // The control's points carry a small alternating error: its b gets a standard error.
        const double noise = (k % 2 ? 0.5 : -0.5) * (n == 0 ? 1 : 0);
        pts.push_back(point(k, k * (28 * n + b[i]) + 700, 4 * i, div));  // --placements 2: 0 and 4
        pts.push_back(point(k, k * (28 * n + loop[i]) + 700 + noise, 4 * i, ctl));
      }
  RunOptions o;
  o.given = {"--body", "--placements"};
  o.placements = 2;
  const ResultRecord r = finalize("sweep", "cost", o, pts);
  const json& body = r.summary["bodies"][0];
  EXPECT_TRUE(body["linear_in_n"].get<bool>());
  EXPECT_NEAR(body["b_cycles_per_path_min"].get<double>(), 180, 1e-6);
  EXPECT_NEAR(body["b_cycles_per_path_max"].get<double>(), 184, 1e-6);
  EXPECT_NEAR(body["b_loop_cycles_per_path_min"].get<double>(), 163, 0.5);
  EXPECT_NEAR(body["b_loop_cycles_per_path_max"].get<double>(), 165, 0.5);
  EXPECT_NEAR(body["b_divergence_cycles_per_path"].get<double>(), 18, 0.5);  // median of 17 and 19
  EXPECT_NEAR(body["b_divergence_cycles_per_path_min"].get<double>(), 17, 0.5);
  EXPECT_NEAR(body["b_divergence_cycles_per_path_max"].get<double>(), 19, 0.5);
  EXPECT_GT(body["b_loop_cycles_per_path_se"].get<double>(), 0);
  EXPECT_NEAR(body["b_divergence_cycles_per_path_se"].get<double>(), body["b_loop_cycles_per_path_se"].get<double>(), 1e-6);
  EXPECT_NEAR(body["a"].get<double>(), 28, 1e-6);  // the divergent fit, not the control's
  EXPECT_NEAR(body["placements"][1]["b_divergence"].get<double>(), 19, 0.5);
  EXPECT_NEAR(r.summary["b_divergence_cycles_per_path"].get<double>(), 18, 0.5);
  EXPECT_NEAR(r.summary["b_cycles_per_path"].get<double>(), 182, 1e-6);
  // No kernel facts next to this test binary: whether the loops are equal is not known, and says why.
  EXPECT_TRUE(body["control_loops_equal"].is_null());
  EXPECT_FALSE(body["control_loops"]["why"].get<std::string>().empty());
}

TEST(Finalize, CostWithoutControlPointsLeavesTheSplitNull) {
  std::vector<TimedPoint> pts;  // a result written before the control: no region axis
  for (double n : {0.0, 1000.0})
    for (int k : {1, 2, 4}) pts.push_back(point(k, k * (28 * n + 180) + 700, 0, {{"body", "fma_chain"}, {"n", static_cast<int>(n)}}));
  RunOptions o;
  o.given = {"--body"};
  const ResultRecord r = finalize("sweep", "cost", o, pts);
  const json& body = r.summary["bodies"][0];
  EXPECT_NEAR(body["b_cycles_per_path"].get<double>(), 180, 1e-6);
  EXPECT_TRUE(body["b_loop_cycles_per_path"].is_null());
  EXPECT_TRUE(body["b_divergence_cycles_per_path"].is_null());
}

TEST(Finalize, CostPublishesNoABCWhereTheFitIsNotLinearInN) {
  // Time per iteration that grows with n (a table that misses more): no k*(a*n + b) + c fits it.
  std::vector<TimedPoint> pts;
  for (double n : {0.0, 100.0, 300.0, 1000.0})
    for (int k : {1, 2, 4, 8, 16, 32})
      for (const char* region : {"divergent", "control"})
        pts.push_back(point(k, k * (180 + 0.4 * n * n) + 1000, 0,
                            {{"body", "mem_divergent"}, {"n", static_cast<int>(n)}, {"region", region}}));
  RunOptions o;
  o.given = {"--body"};
  o.body = "mem_divergent";
  const ResultRecord r = finalize("sweep", "cost", o, pts);
  const json& body = r.summary["bodies"][0];
  EXPECT_FALSE(body["linear_in_n"].get<bool>());
  EXPECT_NE(body["not_linear"].get<std::string>().find("max relative residual"), std::string::npos);
  for (const char* key : {"a", "a_min", "b", "b_max", "c", "b_cycles_per_path", "b_loop_cycles_per_path",
                          "b_divergence_cycles_per_path", "a_rel_err"})
    EXPECT_TRUE(body[key].is_null()) << key;
  EXPECT_NEAR(body["b_direct"].get<double>(), 180, 1e-6);  // n = 0 alone is linear in k
  EXPECT_TRUE(r.summary["b_cycles_per_path"].is_null());
  // The fit of each placement stays in placements[] for the record.
  EXPECT_GT(body["placements"][0]["max_rel_residual"].get<double>(), kCostLinearMaxRelResidual);
}

TEST(Finalize, LoopsDifferenceTwoIterationCountsPerBodyAndPlacement) {
  // T(n) = 33 n + 900 at placement 0, 35 n + 950 at placement 4: a = 33 and 35, the fixed part gone.
  std::vector<TimedPoint> pts;
  for (int placement : {0, 4})
    for (std::uint32_t n : {1000u, 5000u}) {
      const double a = placement == 0 ? 33 : 35, fixed = placement == 0 ? 900 : 950;
      pts.push_back(point(1, a * n + fixed, placement, {{"body", "int_chain"}, {"n", n}}));
      pts.back().axes.erase("k");
    }
  RunOptions o;
  o.given = {"--placements"};
  o.placements = 2;
  const ResultRecord r = finalize("sweep", "loops", o, pts);
  const json& loops = r.summary["loops"];
  ASSERT_EQ(loops.size(), 2u);  // the other bodies have no points
  EXPECT_EQ(loops[0]["body"], "int_chain");
  EXPECT_NEAR(loops[0]["a"].get<double>(), 33, 1e-9);
  EXPECT_NEAR(loops[1]["a"].get<double>(), 35, 1e-9);
  EXPECT_EQ(loops[1]["placement"], 4);
  EXPECT_EQ(loops[0]["n2"], 5000);
}

TEST(Finalize, SamplingPairsModesAndSplitsComputeFromMemory) {
  auto pt = [](const char* body, int k, const char* mode, double cycles) {
    TimedPoint p = point(k, cycles, 0, {{"body", body}, {"map", "modulo"}, {"sampling", mode}});
    return p;
  };
  const ResultRecord r = finalize("sweep", "sampling", RunOptions{},
                                  {pt("fma_chain", 1, "single", 290333), pt("fma_chain", 1, "warp-per-sm", 290336),
                                   pt("mem_divergent", 1, "single", 1000000), pt("mem_divergent", 1, "warp-per-sm", 1010000)});
  EXPECT_NEAR(r.summary["max_rel_diff_compute"].get<double>(), 3.0 / 290333, 1e-12);
  EXPECT_NEAR(r.summary["max_rel_diff_memory"].get<double>(), 0.01, 1e-12);
  EXPECT_TRUE(r.summary["by_body"]["fma_chain"]["modes_equal"].get<bool>());
  EXPECT_FALSE(r.summary["by_body"]["mem_divergent"]["modes_equal"].get<bool>());
  ASSERT_EQ(r.summary["pairs"].size(), 2u);
  bool annotated = false;
  for (const auto& p : r.points)
    if (p.axes.value("sampling", "") == "warp-per-sm" && p.axes["body"] == "fma_chain")
      annotated = p.extra.contains("rel_diff") && p.extra["median_single"].get<double>() == 290333;
  EXPECT_TRUE(annotated);
}

TEST(Finalize, SamplingFitsSeparateAConstantOffsetFromTheSlope) {
  // warp-per-sm 35 cycles above single at every k (the H200's shape): medians differ by 1.2e-4 at
  // k = 1, the slope not at all, the intercept by 35. A mode whose cost grows with k moves s.
  auto pt = [](const char* body, int k, const char* mode, double cycles) {
    return point(k, cycles, 0, {{"body", body}, {"map", "modulo"}, {"sampling", mode}});
  };
  std::vector<TimedPoint> pts;
  for (int k : {1, 2, 8, 32}) {
    pts.push_back(pt("fma_chain", k, "single", 280000.0 * k + 713));
    pts.push_back(pt("fma_chain", k, "warp-per-sm", 280000.0 * k + 748));
    pts.push_back(pt("mem_divergent", k, "single", 300000.0 * k + 90000));
    pts.push_back(pt("mem_divergent", k, "warp-per-sm", 309000.0 * k + 90000));
  }
  const ResultRecord r = finalize("sweep", "sampling", RunOptions{}, pts);
  const json& chain = r.summary["by_body"]["fma_chain"];
  EXPECT_FALSE(chain["modes_equal"].get<bool>());  // 35 / 280713 > 1e-4
  EXPECT_TRUE(chain["slopes_equal"].get<bool>());
  EXPECT_NEAR(chain["max_abs_s_rel_diff"].get<double>(), 0.0, 1e-9);
  EXPECT_NEAR(chain["c_offset_cycles"][0].get<double>(), 35.0, 1e-6);
  EXPECT_FALSE(r.summary["by_body"]["mem_divergent"]["slopes_equal"].get<bool>());
  EXPECT_NEAR(r.summary["max_s_rel_diff_compute"].get<double>(), 0.0, 1e-9);
  ASSERT_EQ(r.summary["fits"].size(), 2u);
}
