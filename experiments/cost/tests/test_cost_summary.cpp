// The cost decomposition without a GPU: finalize() over synthetic points (a, b, c per placement; b split
// into the loop over paths and divergence by the no-divergence control; no a, b, c where T is not linear
// in n) and its divbench.result/1 document (validated against experiments/cost/schema.json by
// tests/python/test_schemas.py).
#include <gtest/gtest.h>

#include "experiments/cost/summary.hpp"
#include "tests/cpu/experiments/schema_documents.hpp"
#include "tests/cpu/experiments/synthetic_points.hpp"

using namespace divbench;
using namespace divbench::synthetic;
using namespace divbench::schema_docs;

TEST(Finalize, CostRecoversABCPerPlacement) {
  // T(k, n) = k * (a*n + b) + c with a, b, c differing slightly by placement.
  std::vector<TimedPoint> pts;
  const double a[2] = {28.0, 29.0}, b[2] = {178, 170}, c[2] = {700, 720};
  for (int p = 0; p < 2; ++p)
    for (double n : {0.0, 1000.0, 3000.0, 10000.0})
      for (int k : {1, 2, 4, 8, 32})
        pts.push_back(point(k, k * (a[p] * n + b[p]) + c[p], p, {{"body", "fma_chain"}, {"n", static_cast<int>(n)}}));
  CommandLine o;
  o.set("--body", "fma_chain");
  o.set("--placements", "8");  // the points carry placements 0 and 1; finalize fits the placements it finds
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
  CommandLine o;
  o.set("--body", "fma_chain");
  o.set("--placements", "2");
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

TEST(Finalize, CostSplitsBDivergenceByTheSlotControl) {
  // As above (b_divergence 17/19), and at n = 0 the slot control's two runs: slope 170 reading slot q
  // and 166 reading slot 0 at placement 0; 171 and 166 at placement 4.
  std::vector<TimedPoint> pts;
  const double b[2] = {180, 184}, loop[2] = {163, 165}, slot0[2] = {166, 166}, slotq[2] = {170, 171};
  for (int i = 0; i < 2; ++i)
    for (double n : {0.0, 1000.0, 3000.0})
      for (int k = 1; k <= 32; ++k) {
        const json ax{{"body", "fma_chain"}, {"n", static_cast<int>(n)}};
        json div = ax, ctl = ax, q = ax, z = ax;
        div["region"] = "divergent";
        ctl["region"] = "control";
        q["region"] = "control_slot_q";
        z["region"] = "control_slot_0";
        pts.push_back(point(k, k * (28 * n + b[i]) + 700, 4 * i, div));
        pts.push_back(point(k, k * (28 * n + loop[i]) + 700, 4 * i, ctl));
        if (n != 0) continue;
        pts.push_back(point(k, k * slotq[i] + 700, 4 * i, q));
        pts.push_back(point(k, k * slot0[i] + 700, 4 * i, z));
      }
  CommandLine o;
  o.set("--body", "fma_chain");
  o.set("--placements", "2");
  const ResultRecord r = finalize("sweep", "cost", o, pts);
  const json& body = r.summary["bodies"][0];
  EXPECT_NEAR(body["b_param_reads_cycles_per_path_min"].get<double>(), 4, 1e-6);
  EXPECT_NEAR(body["b_param_reads_cycles_per_path_max"].get<double>(), 5, 1e-6);
  EXPECT_NEAR(body["b_branch_cycles_per_path_min"].get<double>(), 13, 1e-6);  // 17 - 4
  EXPECT_NEAR(body["b_branch_cycles_per_path_max"].get<double>(), 14, 1e-6);  // 19 - 5
  for (const auto& pl : body["placements"])  // the parts add up at each placement
    EXPECT_NEAR(pl["b_param_reads"].get<double>() + pl["b_branch"].get<double>(), pl["b_divergence"].get<double>(), 1e-9);
  EXPECT_NEAR(r.summary["b_param_reads_cycles_per_path"].get<double>(), 4.5, 1e-6);
  // Without the slot runs at one placement, the split is not published.
  std::vector<TimedPoint> some;
  for (const auto& p : pts)
    if (!(p.axes.value("region", "") == "control_slot_q" && p.axes.value("placement", -1) == 4)) some.push_back(p);
  const ResultRecord r2 = finalize("sweep", "cost", o, some);
  const json& b2 = r2.summary["bodies"][0];
  EXPECT_TRUE(b2["b_param_reads_cycles_per_path"].is_null());
  EXPECT_TRUE(b2["b_branch_cycles_per_path"].is_null());
  EXPECT_FALSE(b2["b_divergence_cycles_per_path"].is_null());
}

TEST(Finalize, CostWithoutControlPointsLeavesTheSplitNull) {
  std::vector<TimedPoint> pts;  // a result written before the control: no region axis
  for (double n : {0.0, 1000.0})
    for (int k : {1, 2, 4}) pts.push_back(point(k, k * (28 * n + 180) + 700, 0, {{"body", "fma_chain"}, {"n", static_cast<int>(n)}}));
  CommandLine o;
  o.set("--body", "fma_chain");
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
  CommandLine o;
  o.set("--body", "mem_divergent");
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

TEST(SchemaDocuments, CostTwoBodiesTwoPlacements) {
  CommandLine o;
  o.set("--placements", "2");
  ResultRecord r;
  for (const char* body : {"fma_chain", "sfu"})
    for (int placement : {0, 4})  // --placements 2: the window's two ends
      for (std::uint32_t n : {0u, 100u, 1000u})
        for (int k : {1, 2, 4, 8})
          for (const char* region : {"divergent", "control"}) {
            const double a = body[0] == 'f' ? 28 : 40;
            const double b = (region[0] == 'd' ? 180 : 163) + placement;
            r.points.push_back(timed(k, k * (a * n + b) + 700, placement, {{"body", body}, {"iters_per_path", n}}));
            r.points.back().axes = {{"body", body}, {"placement", placement}, {"n", n}, {"k", k}, {"region", region}};
          }
  const json doc = document("sweep", "cost", o, std::move(r));
  EXPECT_NEAR(doc["summary"]["bodies"][1]["b_divergence_cycles_per_path"].get<double>(), 17, 1e-6);
  ASSERT_EQ(doc["summary"]["bodies"].size(), 2u);
  EXPECT_EQ(doc["summary"]["bodies"][0]["placements"].size(), 2u);
  EXPECT_NEAR(doc["summary"]["a_cycles_per_iter"].get<double>(), 28, 1e-6);
  EXPECT_TRUE(doc["summary"]["bodies"][0]["a_predicted"].is_null());  // no SASS model linked in this build
}
