// The k sweep without a GPU: finalize() over synthetic points (the fit at every code placement, the
// spread of s over placements) and its divbench.result/1 document (tests/python/test_schemas.py runs the
// SchemaDocuments tests with DIVBENCH_SCHEMA_DOCS set and validates kway.json against
// experiments/kway/schema.json).
#include <gtest/gtest.h>

#include <set>

#include "experiments/kway/launcher.hpp"
#include "harness/config.hpp"
#include "tests/cpu/experiments/schema_documents.hpp"
#include "tests/cpu/experiments/synthetic_points.hpp"

using namespace divbench;
using namespace divbench::synthetic;
using namespace divbench::schema_docs;

TEST(Finalize, KwayFitsEveryPlacementAndReportsTheSpread) {
  std::vector<TimedPoint> pts;
  const double s[4] = {280000, 283000, 279000, 290000};
  for (int p = 0; p < 4; ++p)
    for (int k = 1; k <= 8; ++k) pts.push_back(point(k, s[p] * k + 700, p));
  const ResultRecord r = finalize("sweep", "kway", CommandLine{}, pts);
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
  const ResultRecord r = finalize("sweep", "kway", CommandLine{}, pts);
  EXPECT_EQ(r.summary["layout_placements"].get<int>(), 1);
  EXPECT_EQ(r.summary["s_layout_spread_rel"].get<double>(), 0.0);
  EXPECT_NEAR(r.summary["ratio_32_over_1"].get<double>(), 32010.0 / 1010.0, 1e-12);
}

TEST(SchemaDocuments, KwayAtFourPlacementsWithSamples) {
  CommandLine o;
  o.set("--placements", "4");
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

TEST(KwayPlan, MetricLaunchKeysNameTheLaunchAndPlacement) {
  // No GPU needed: plan() only builds the launches. Each point's metric launches carry the key the
  // occupancy sweep gives the same launches (placement 0), one key per (k, placement).
  CommandLine o;
  o.set("--sweep", "k");
  o.set("--placements", "2");
  o.set("--k", "1,32");
  const std::vector<PointSpec> pts = synthetic::prepare("sweep", "kway", o).plan(synthetic_device());
  ASSERT_EQ(pts.size(), 4u);
  std::set<std::string> keys;
  for (const auto& p : pts) keys.insert(p.launch_key);
  EXPECT_EQ(keys.size(), 4u);
  const WorkConfig w = parse_work(synthetic::values_for("sweep", "kway", {}));  // the declared defaults
  EXPECT_EQ(keys.count(kway_launch_key(w.body, w.map, 32, w.iters, w.seed, 0)), 1u);
  EXPECT_EQ(keys.count(kway_launch_key(w.body, w.map, 1, w.iters, w.seed, 4)), 1u);
}
