// The predication sweep's divbench.result/1 document as the harness writes it, over synthetic points
// (validated against experiments/predication/schema.json by tests/python/test_schemas.py).
#include <gtest/gtest.h>

#include "tests/cpu/experiments/schema_documents.hpp"

using namespace divbench;
using namespace divbench::schema_docs;

TEST(SchemaDocuments, Predication) {
  CommandLine o;
  o.set("--placements", "2");
  o.set("--k", "4");
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
