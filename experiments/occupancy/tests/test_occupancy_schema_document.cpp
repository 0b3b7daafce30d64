// The occupancy sweep's divbench.result/1 document as the harness writes it, over synthetic points
// (validated against experiments/occupancy/schema.json by tests/python/test_schemas.py).
#include <gtest/gtest.h>

#include "tests/cpu/experiments/schema_documents.hpp"

using namespace divbench;
using namespace divbench::schema_docs;

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
  const json doc = document("sweep", "occupancy", CommandLine{}, std::move(r));
  EXPECT_EQ(doc["summary"]["series"].size(), 4u);
  EXPECT_TRUE(doc["points"][0]["steady_state"].get<bool>());
}
