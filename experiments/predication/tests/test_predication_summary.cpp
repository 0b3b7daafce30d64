// The predication sweep without a GPU: its configuration (two iteration counts, placements, the
// baselines always run) and its summary from synthetic points (per-iteration cost from the two
// counts, ratios over placements, the placement-spread verdict, the SASS table, the shape rule).
#include <gtest/gtest.h>

#include "divbench/core/errors.hpp"
#include "experiments/predication/summary.hpp"
#include "harness/experiment.hpp"
#include "tests/cpu/experiments/synthetic_points.hpp"
#include "harness/runner.hpp"

using namespace divbench;

namespace {

// A point whose median time is fixed + c * n.
TimedPoint pt(const std::string& variant, int arms, int placement, double n, double c, double fixed,
              json loop = json{{"available", false}, {"why", "synthetic"}}) {
  TimedPoint p;
  p.k = arms;
  p.cycles.median = p.cycles.min = p.cycles.max = p.cycles.mean = fixed + c * n;
  p.cycles.n = 1;
  p.extra = json{{"variant", variant}, {"arms", arms}, {"iters_per_path", n}, {"placement", placement},
                 {"loops_per_iteration", variant == "branchy" ? 2 : 1}, {"loop", loop}};
  p.axes = json{{"placement", placement}, {"variant", variant}, {"arms", arms}, {"n", static_cast<int>(n)}};
  return p;
}

// The two points (n = 1000 and 10000) of one variant at one placement.
void add(std::vector<TimedPoint>& pts, const std::string& variant, int arms, int placement, double c, double fixed,
         const json& loop = json{{"available", false}, {"why", "synthetic"}}) {
  for (double n : {1000.0, 10000.0}) pts.push_back(pt(variant, arms, placement, n, c, fixed, loop));
}

json loop(int ffma, int other, int stall, const std::string& fn = "f") {
  return json{{"available", true}, {"function", fn}, {"sm", 90}, {"instructions", ffma + other},
              {"stall_sum", stall}, {"taken_branches", 1}, {"single_path", true},
              {"opcodes", {{"FFMA", ffma}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", other - 2}}}};
}

ResultRecord finalize_predication(std::vector<TimedPoint> pts, CommandLine o = {}) {
  ResultRecord r;
  r.points = std::move(pts);
  synthetic::prepare("sweep", "predication", o).finalize(r);
  return r;
}


}  // namespace

TEST(PredicationSummary, PerIterationCostCancelsFixedCostsAndRatiosSpanPlacements) {
  std::vector<TimedPoint> pts;
  const double cs[3] = {28.0, 29.0, 28.5};
  for (int p = 0; p < 3; ++p) {
    add(pts, "single", 1, p, cs[p], 500 + 100 * p);              // fixed costs differ: they must cancel
    add(pts, "branchy", 2, p, 2 * cs[p] + p, 1500);
    add(pts, "predicated", 2, p, cs[p] * 0.96, 900);
    add(pts, "predicated", 1, p, cs[p], 700);
  }
  const json s = finalize_predication(pts).summary;
  // branchy / single per placement: 2, (58+1)/29, (57+2)/28.5.
  EXPECT_NEAR(s["ratio_branchy_over_single_min"].get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(s["ratio_branchy_over_single_max"].get<double>(), 59.0 / 28.5, 1e-9);
  EXPECT_NEAR(s["ratio_branchy_over_single"].get<double>(), 59.0 / 29.0, 1e-9);  // median of three
  EXPECT_NEAR(s["ratio_predicated_over_single"].get<double>(), 0.96, 1e-9);
  EXPECT_NEAR(s["ratio_predicated_over_single_min"].get<double>(), 0.96, 1e-9);
  EXPECT_NEAR(s["ratio_predicated_over_single_max"].get<double>(), 0.96, 1e-9);
  // Predicated 26.88..27.84 vs single 28..29: 27.84 < 28, beyond the placement spread.
  EXPECT_TRUE(s["predicated_differs_from_single_beyond_placement_spread"].get<bool>());
  const json range = s["predicated_vs_single"]["ratio_range_any_placements"];
  EXPECT_NEAR(range[0].get<double>(), 28.0 * 0.96 / 29.0, 1e-9);
  EXPECT_NEAR(range[1].get<double>(), 29.0 * 0.96 / 28.0, 1e-9);
  EXPECT_LT(range[1].get<double>(), 1.0);
  EXPECT_NEAR(s["predicated_over_single_by_arms"]["2"].get<double>(), 0.96, 1e-9);
  EXPECT_NEAR(s["predicated_over_single_by_arms"]["1"].get<double>(), 1.0, 1e-9);
  EXPECT_EQ(s["per_iteration"].size(), 12u);
  EXPECT_TRUE(s["loop_shapes_equal"].is_null());  // no shapes recorded
}

TEST(PredicationSummary, OverlappingRangesAreNotADifference) {
  std::vector<TimedPoint> pts;
  for (int p = 0; p < 4; ++p) {
    add(pts, "single", 1, p, 28.0 + p, 500);          // 28..31
    add(pts, "predicated", 2, p, 30.5 - p * 0.5, 500);  // 29..30.5
  }
  const json s = finalize_predication(pts).summary;
  EXPECT_FALSE(s["predicated_differs_from_single_beyond_placement_spread"].get<bool>());
  const json range = s["predicated_vs_single"]["ratio_range_any_placements"];
  EXPECT_LT(range[0].get<double>(), 1.0);
  EXPECT_GT(range[1].get<double>(), 1.0);
}

TEST(PredicationSummary, OnePlacementGivesNoVerdict) {
  std::vector<TimedPoint> pts;
  add(pts, "single", 1, 0, 28, 500);
  add(pts, "predicated", 2, 0, 20, 500);
  const json s = finalize_predication(pts).summary;
  EXPECT_TRUE(s["predicated_differs_from_single_beyond_placement_spread"].is_null());
  EXPECT_TRUE(s["predicated_vs_single"].contains("note"));
}

TEST(PredicationSummary, SassTableAndTheShapeRule) {
  std::vector<TimedPoint> pts;
  for (int p = 0; p < 2; ++p) {
    add(pts, "single", 1, p, 28, 500, loop(4, 3, 23));
    add(pts, "branchy", 2, p, 56, 900, loop(4, 3, 23));
    add(pts, "predicated", 1, p, 28, 500, loop(4, 3, 23));
    add(pts, "predicated", 2, p, 28, 500, loop(8, 3, 23));
    add(pts, "predicated", 32, p, 262, 500, loop(128, 3, 136));
  }
  json s = finalize_predication(pts).summary;
  EXPECT_TRUE(s["loop_shapes_equal"].get<bool>());
  EXPECT_TRUE(s["loop_shape_problems"].empty());
  for (const auto& row : s["variants"]) {
    SCOPED_TRACE(row.dump());
    ASSERT_TRUE(row["sass"]["available"].get<bool>());
    if (row["variant"] == "branchy") {
      EXPECT_EQ(row["sass"]["instructions_per_iteration"].get<int>(), 14);  // the loop runs once per arm
      EXPECT_NEAR(row["cycles_per_instruction"]["median"].get<double>(), 4.0, 1e-9);
    }
    if (row["variant"] == "predicated" && row["arms"] == 32) {
      EXPECT_EQ(row["sass"]["instructions"].get<int>(), 131);
      EXPECT_EQ(row["sass"]["stall_sum"].get<int>(), 136);
      EXPECT_NEAR(row["cycles_per_instruction"]["median"].get<double>(), 2.0, 1e-9);
      EXPECT_NEAR(row["over_predicated1"]["median"].get<double>(), 262.0 / 28.0, 1e-9);
    }
  }
  // A 32-arm loop with 24 extra instructions (ptxas recomputing constants inside it) breaks the rule.
  for (auto& p : pts)
    if (p.extra["arms"] == 32 && p.extra["placement"] == 1) p.extra["loop"] = loop(128, 27, 266);
  s = finalize_predication(pts).summary;
  EXPECT_FALSE(s["loop_shapes_equal"].get<bool>());
  ASSERT_EQ(s["loop_shape_problems"].size(), 1u);
  EXPECT_NE(s["loop_shape_problems"][0].get<std::string>().find("placement 1: 32-arm"), std::string::npos);
  // A shape missing at one placement: no verdict.
  for (auto& p : pts)
    if (p.extra["arms"] == 32 && p.extra["placement"] == 1) p.extra["loop"] = json{{"available", false}};
  s = finalize_predication(pts).summary;
  EXPECT_TRUE(s["loop_shapes_equal"].is_null());
}

TEST(PredicationConfig, TwoCountsPlacementsAndBaselines) {
  const json c = synthetic::prepare("sweep", "predication", CommandLine{}).config;
  EXPECT_EQ(c["ns"], json({1000, 10000}));
  EXPECT_EQ(c["placements"].size(), 8u);
  EXPECT_EQ(c["predicated_arms"], json({1, 2, 4, 8, 16, 32}));
  CommandLine o;
  o.set("--k", "32");
  o.set("--n", "500,5000");
  o.set("--placements", "2");
  const json d = synthetic::prepare("sweep", "predication", o).config;
  EXPECT_EQ(d["predicated_arms"], json({1, 2, 32}));  // the ratios' baselines always run
  EXPECT_EQ(d["ns"], json({500, 5000}));
  EXPECT_EQ(d["placements"], json({0, 4}));  // the window's two ends
}

TEST(PredicationConfig, BadInput) {
  CommandLine one;
  one.set("--n", "1000");
  EXPECT_THROW(synthetic::prepare("sweep", "predication", one), UsageError);
  CommandLine three;
  three.set("--n", "1,2,3");
  EXPECT_THROW(synthetic::prepare("sweep", "predication", three), UsageError);
  CommandLine zero;
  zero.set("--n", "0,1000");
  EXPECT_THROW(synthetic::prepare("sweep", "predication", zero), UsageError);
  CommandLine iters;  // not declared: the accepted-options check refuses it
  iters.set("--iters", "10000");
  iters.set("--sweep", "predication");
  EXPECT_THROW(prepare_experiments(iters), UsageError);
  CommandLine arms;
  arms.set("--k", "3");
  EXPECT_THROW(synthetic::prepare("sweep", "predication", arms), UsageError);
}

namespace {
// A work loop as the kernel facts give it: VIADD, `ffma` FFMA, `other_extra` FADD, ISETP, BRA.
LoopShape chain_shape(int ffma, int other_extra = 0, bool single_path = true) {
  LoopShape s;
  s.function = "k";
  s.sm = 90;
  s.instructions = 3 + ffma + other_extra;
  s.stall_sum = 23;
  s.taken_branches = 1;
  s.single_path = single_path;
  s.opcodes = {{"VIADD", 1}, {"FFMA", ffma}, {"ISETP", 1}, {"BRA", 1}};
  if (other_extra) s.opcodes["FADD"] = other_extra;
  return s;
}
}  // namespace

TEST(PredicationShapeRule, PassesOnEqualShapes) {
  EXPECT_TRUE(predication_shape_problems(chain_shape(4), {{1, chain_shape(4)}, {2, chain_shape(8)}, {32, chain_shape(128)}}).empty());
}

TEST(PredicationShapeRule, FailsOnEachDifference) {
  // Extra instructions besides the FFMA (constants reloaded or recomputed in the loop).
  auto p = predication_shape_problems(chain_shape(4), {{2, chain_shape(8)}, {32, chain_shape(128, 24)}});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("32-arm"), std::string::npos);
  // The wrong number of FFMA (an arm's chain dropped or duplicated).
  EXPECT_EQ(predication_shape_problems(chain_shape(4), {{2, chain_shape(12)}}).size(), 1u);
  // A single path that is not the 4-FFMA chain loop.
  EXPECT_FALSE(predication_shape_problems(chain_shape(8), {}).empty());
  // More than one path per iteration.
  EXPECT_FALSE(predication_shape_problems(chain_shape(4), {{2, chain_shape(8, 0, false)}}).empty());
}
