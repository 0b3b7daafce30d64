// divbench.result/1 documents as the current harness writes them, without a GPU, for the JSON Schema
// check of tests/python/test_schemas.py: each experiment's real parse/to_json (config), finalize
// (fit, summary), to_json(ResultRecord) (envelope, points with raw samples) and the harness block, over
// synthetic points (device "SYNTHETIC", made-up cycles: nothing here is a measurement). With
// DIVBENCH_SCHEMA_DOCS=DIR set, every document is also written to DIR/<name>.json; the Python test runs
// this binary that way and validates the files against schemas/ and experiments/*/schema.json. The helpers
// are in schema_documents.hpp; an experiment with its own folder keeps its SchemaDocuments test there
// (experiments/order/tests/test_order_schema_document.cpp,
// experiments/lock/tests/test_lock_schema_document.cpp,
// experiments/producer_consumer/tests/test_producer_consumer_schema_document.cpp).
#include <gtest/gtest.h>

#include "tests/cpu/experiments/schema_documents.hpp"

using namespace divbench;
using namespace divbench::schema_docs;

TEST(SchemaDocuments, KwayAtFourPlacementsWithSamples) {
  RunOptions o;
  o.given = {"--placements"};
  o.placements = 4;
  ResultRecord r;
  for (int placement = 0; placement < 4; ++placement)
    for (int k : {1, 2, 4, 8, 16, 32}) {
      r.points.push_back(timed(k, (1000.0 + 10 * placement) * k + 50, placement));
      r.points.back().axes = {{"placement", placement}, {"k", k}};
      r.points.back().extra["metrics"] = synthetic_metrics(k);
    }
  const json doc = document("sweep", "kway", o, std::move(r));
  EXPECT_EQ(doc["summary"]["points_with_conditions"], 24);
  EXPECT_EQ(doc["points"][0]["conditions"]["reasons"], json({"gpu_idle"}));
  EXPECT_FALSE(doc["points"][0]["metrics"]["region"]["pred_on_ratio"].is_null());
  EXPECT_EQ(doc["fit"]["placements"].size(), 4u);
  EXPECT_EQ(doc["summary"]["layout_placements"], 4);
  EXPECT_EQ(doc["points"][0]["samples"]["cycles"].size(), 8u);
  EXPECT_TRUE(doc.contains("harness"));
}

TEST(SchemaDocuments, CostTwoBodiesTwoPlacements) {
  RunOptions o;
  o.given = {"--placements"};
  o.placements = 2;
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

TEST(SchemaDocuments, OccupancyResidencies) {
  ResultRecord r;
  const std::vector<std::pair<int, int>> shapes{{1, 1}, {2, 1}, {4, 1}, {4, 2}};  // (warps per SM, waves)
  for (const auto& [w, waves] : shapes) {
    const json res{{"series", waves == 1 ? "resident" : "oversubscribed"}, {"warps_per_sm", w}, {"waves", waves},
                   {"total_warps", 4 * w * waves}, {"blocks", 4 * waves}, {"threads_per_block", 32 * w},
                   {"dynamic_smem", 0}, {"blocks_per_sm", 1}, {"theoretical_blocks_per_sm", 1},
                   {"theoretical_occupancy", w / 64.0}, {"sms_used", 4},
                   {"warps_run_per_sm", {{"min", w * waves}, {"median", w * waves}, {"max", w * waves}}},
                   {"every_sm_at_target", true}, {"achieved_occupancy", w / 64.0}};
    for (int k : {1, 32}) {
      const double ms = 1.0 * k * waves / 1000.0 + 0.004;  // the synthetic region (1 us per k) per wave + overhead
      TimedPoint p = timed(k, 1000.0 * k, 0,
                           {{"sampling", "grid"}, {"residency", res}, {"sm_warps", {w * waves, w * waves, w * waves, w * waves}},
                            {"kernel_ms", {{"median", ms}, {"min", ms}, {"max", ms}, {"cv", 0}}},
                            {"launch_overhead_ms", {{"median", 0.004}, {"min", 0.004}, {"max", 0.004}, {"cv", 0}}}});
      p.axes = {{"series", res["series"]}, {"warps_per_sm", w}, {"waves", waves}, {"k", k}};
      p.sample_cycles.clear();  // the occupancy sweep keeps no raw samples (config.samples_kept false)
      p.sample_smid.clear();
      r.points.push_back(std::move(p));
    }
  }
  const json doc = document("sweep", "occupancy", RunOptions{}, std::move(r));
  EXPECT_EQ(doc["summary"]["series"].size(), 4u);
  EXPECT_TRUE(doc["points"][0]["steady_state"].get<bool>());
}

TEST(SchemaDocuments, Predication) {
  RunOptions o;
  o.given = {"--placements", "--k"};
  o.placements = 2;
  o.ks = {4};
  ResultRecord r;
  const json loop{{"available", false}, {"why", "synthetic document: no kernel facts"}};
  for (int placement : {0, 4})  // --placements 2: the window's two ends
    for (std::uint32_t n : {1000u, 10000u}) {
      auto add = [&](const char* variant, int arms, double per_iter, int loops) {
        r.points.push_back(timed(arms, 500 + per_iter * n + placement, placement,
                                 {{"variant", variant}, {"arms", arms}, {"iters_per_path", n},
                                  {"loops_per_iteration", loops}, {"loop", loop}}));
        r.points.back().axes = {{"placement", placement}, {"variant", variant}, {"arms", arms}, {"n", n}};
      };
      add("single", 1, 28, 1);
      add("branchy", 2, 56, 2);
      for (int arms : {1, 2, 4}) add("predicated", arms, 27.0 * arms, 1);
    }
  const json doc = document("sweep", "predication", o, std::move(r));
  EXPECT_DOUBLE_EQ(doc["summary"]["ratio_branchy_over_single"].get<double>(), 2.0);
  EXPECT_TRUE(doc["summary"].contains("ratio_predicated_over_single_min"));
}

TEST(SchemaDocuments, SamplingModesSideBySide) {
  RunOptions o;
  o.given = {"--body", "--map", "--k"};
  o.body = "fma_chain";
  o.map = "modulo";
  o.ks = {1, 8};
  ResultRecord r;
  for (int k : {1, 8})
    for (const char* mode : {"single", "warp-per-sm"})
      r.points.push_back(timed(k, 1000.0 * k + (mode[0] == 's' ? 0 : 1), 0,
                               {{"sampling", mode}, {"body", "fma_chain"}, {"map", "modulo"}, {"iters", 10000}}));
  for (auto& p : r.points)
    p.axes = {{"body", "fma_chain"}, {"map", "modulo"}, {"k", static_cast<int>(p.k)}, {"sampling", p.extra["sampling"]}};
  const json doc = document("sweep", "sampling", o, std::move(r));
  EXPECT_EQ(doc["summary"]["pairs"].size(), 2u);
  EXPECT_TRUE(doc["summary"]["max_rel_diff_memory"].is_null());
}
