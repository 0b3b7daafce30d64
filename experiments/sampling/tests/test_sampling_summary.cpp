// The sampling sweep without a GPU: finalize() pairs the two sampling modes per body and k and fits
// each mode (a constant offset apart from the slope), and its divbench.result/1 document (validated
// against experiments/sampling/schema.json by tests/python/test_schemas.py).
#include <gtest/gtest.h>

#include "tests/cpu/experiments/schema_documents.hpp"
#include "tests/cpu/experiments/synthetic_points.hpp"

using namespace divbench;
using namespace divbench::synthetic;
using namespace divbench::schema_docs;

TEST(Finalize, SamplingPairsModesAndSplitsComputeFromMemory) {
  auto pt = [](const char* body, int k, const char* mode, double cycles) {
    TimedPoint p = point(k, cycles, 0, {{"body", body}, {"map", "modulo"}, {"sampling", mode}});
    return p;
  };
  const ResultRecord r = finalize("sweep", "sampling", CommandLine{},
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
  const ResultRecord r = finalize("sweep", "sampling", CommandLine{}, pts);
  const json& chain = r.summary["by_body"]["fma_chain"];
  EXPECT_FALSE(chain["modes_equal"].get<bool>());  // 35 / 280713 > 1e-4
  EXPECT_TRUE(chain["slopes_equal"].get<bool>());
  EXPECT_NEAR(chain["max_abs_s_rel_diff"].get<double>(), 0.0, 1e-9);
  EXPECT_NEAR(chain["c_offset_cycles"][0].get<double>(), 35.0, 1e-6);
  EXPECT_FALSE(r.summary["by_body"]["mem_divergent"]["slopes_equal"].get<bool>());
  EXPECT_NEAR(r.summary["max_s_rel_diff_compute"].get<double>(), 0.0, 1e-9);
  ASSERT_EQ(r.summary["fits"].size(), 2u);
}

TEST(SchemaDocuments, SamplingModesSideBySide) {
  CommandLine o;
  o.set("--body", "fma_chain");
  o.set("--map", "modulo");
  o.set("--k", "1,8");
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
