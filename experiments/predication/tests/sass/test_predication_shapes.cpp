// Equal loop shapes of the predication kernels in the built divbench, from its own SASS: the kernel
// facts the build writes next to the executable (kernel_facts.json, "divbench.kernels/1"; or the
// document DIVBENCH_KERNEL_FACTS names). For every architecture it holds and every code placement:
// the single path's work loop is one path of 4 FFMA plus its counter, compare and back branch, and
// every K-arm predicated form's loop is the same around 4K FFMA (experiments/predication/
// summary.hpp). Skipped when there are no facts (the build writes them when nvdisasm is found),
// failed instead under DIVBENCH_REQUIRE_NVDISASM=1 (CI).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "experiments/predication/launcher.hpp"
#include "divbench/model/kernel_facts.hpp"
#include "divbench/summary/loop_shape.hpp"
#include "experiments/predication/summary.hpp"
#include "tests/sass/built_facts.hpp"

using namespace divbench;

TEST(PredicationShapes, EqualLoopShapesOnEveryArchitectureAndPlacement) {
  std::string where;
  const auto facts = test::built_kernel_facts(where);
  if (!facts) {
    if (test::nvdisasm_required()) FAIL() << where << " missing or not divbench.kernels/1 (DIVBENCH_REQUIRE_NVDISASM=1)";
    GTEST_SKIP() << where << " not found (written at build time with nvdisasm)";
  }
  ASSERT_EQ(facts->value("schema", ""), "divbench.kernels/1") << where;
  int checked = 0;
  for (const auto& cubin : (*facts)["cubins"]) {
    const int sm = cubin["sm"].get<int>();
    if (!test::cubin_has(cubin, "pred_select_kernel")) continue;  // another cubin of the same architecture
    for (int placement = 0; placement < kPlacements; ++placement) {
      SCOPED_TRACE("sm_" + std::to_string(sm) + " placement " + std::to_string(placement));
      try {
        const LoopShape single = work_loop_shape(*facts, sm, predication_kernel_needle(PredVariant::single, 1, placement));
        std::map<int, LoopShape> forms;
        for (int arms : predicated_arm_counts())
          forms[arms] = work_loop_shape(*facts, sm, predication_kernel_needle(PredVariant::predicated, arms, placement));
        for (const auto& problem : predication_shape_problems(single, forms)) ADD_FAILURE() << problem;
        ++checked;
      } catch (const std::runtime_error& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }
  EXPECT_GT(checked, 0) << "no predication kernels in " << where;
  std::printf("checked %d (architecture, placement) pairs of predication loops in %s\n", checked, where.c_str());
}
