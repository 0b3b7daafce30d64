// The no-divergence control's loops equal the divergent kernel's, from the built divbench's own SASS
// (kernel_facts.json next to it, or the document DIVBENCH_KERNEL_FACTS names): for every
// architecture it holds, every work body and every code placement, kway_control_kernel's loop over
// paths and its work loop have the instruction count, stall sum, taken branches and count per opcode
// of kway_kernel's (include/divbench/summary/loop_shape.hpp, equal_shape_problems). The control's b
// is the loop over paths only if the loops are the same. Skipped when there are no facts, failed
// instead under DIVBENCH_REQUIRE_NVDISASM=1 (CI).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "divbench/core/body.hpp"
#include "divbench/core/warp.hpp"
#include "divbench/kernels/kway.hpp"
#include "divbench/sass/kernel_facts.hpp"
#include "divbench/summary/loop_shape.hpp"

using namespace divbench;

TEST(KwayControlShapes, ControlLoopsEqualTheDivergentKernelsOnEveryArchitectureBodyAndPlacement) {
  const char* env = std::getenv("DIVBENCH_KERNEL_FACTS");
  const std::filesystem::path path =
      env && *env ? std::filesystem::path(env)
                  : std::filesystem::path(DIVBENCH_EXECUTABLE).parent_path() / sass::kKernelFactsFile;
  const auto facts = sass::load_kernel_facts(path.parent_path().string(), path.filename().string());
  if (!facts) {
    const char* req = std::getenv("DIVBENCH_REQUIRE_NVDISASM");
    if (req && std::string(req) == "1") FAIL() << path << " missing or not divbench.kernels/1 (DIVBENCH_REQUIRE_NVDISASM=1)";
    GTEST_SKIP() << path << " not found (written at build time with nvdisasm)";
  }
  int checked = 0;
  for (const auto& cubin : (*facts)["cubins"]) {
    const int sm = cubin["sm"].get<int>();
    bool has_kway = false;
    for (const auto& f : cubin["functions"])
      has_kway = has_kway || f["name"].get<std::string>().find("kway_kernel") != std::string::npos;
    if (!has_kway) continue;  // another cubin of the same architecture
    for (Body body : all_bodies())
      for (int placement = 0; placement < kPlacements; ++placement) {
        SCOPED_TRACE("sm_" + std::to_string(sm) + " " + body_name(body) + " placement " + std::to_string(placement));
        try {
          const std::string div = kway_kernel_needle(body, placement, false);
          const std::string ctl = kway_kernel_needle(body, placement, true);
          for (const auto& p : equal_shape_problems(enclosing_loop_shape(*facts, sm, div),
                                                    enclosing_loop_shape(*facts, sm, ctl), "loop over paths"))
            ADD_FAILURE() << p;
          for (const auto& p : equal_shape_problems(work_loop_shape(*facts, sm, div), work_loop_shape(*facts, sm, ctl),
                                                    "work loop"))
            ADD_FAILURE() << p;
          ++checked;
        } catch (const std::runtime_error& e) {
          ADD_FAILURE() << e.what();
        }
      }
  }
  EXPECT_GT(checked, 0) << "no kway kernels in " << path;
  std::printf("checked %d (architecture, body, placement) triples of control loops in %s\n", checked,
              path.string().c_str());
}
