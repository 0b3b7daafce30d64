// The validation-loop sweep without a GPU: finalize() differences two iteration counts per body and
// placement.
#include <gtest/gtest.h>

#include "tests/cpu/experiments/synthetic_points.hpp"

using namespace divbench;
using namespace divbench::synthetic;

TEST(Finalize, LoopsDifferenceTwoIterationCountsPerBodyAndPlacement) {
  // T(n) = 33 n + 900 at placement 0, 35 n + 950 at placement 4: a = 33 and 35, the fixed part gone.
  std::vector<TimedPoint> pts;
  for (int placement : {0, 4})
    for (std::uint32_t n : {1000u, 5000u}) {
      const double a = placement == 0 ? 33 : 35, fixed = placement == 0 ? 900 : 950;
      pts.push_back(point(1, a * n + fixed, placement, {{"body", "int_chain"}, {"n", n}}));
      pts.back().axes.erase("k");
    }
  CommandLine o;
  o.set("--placements", "2");
  const ResultRecord r = finalize("sweep", "loops", o, pts);
  const json& loops = r.summary["loops"];
  ASSERT_EQ(loops.size(), 2u);  // the other bodies have no points
  EXPECT_EQ(loops[0]["body"], "int_chain");
  EXPECT_NEAR(loops[0]["a"].get<double>(), 33, 1e-9);
  EXPECT_NEAR(loops[1]["a"].get<double>(), 35, 1e-9);
  EXPECT_EQ(loops[1]["placement"], 4);
  EXPECT_EQ(loops[0]["n2"], 5000);
}
