// Self-check of divbench's own timed kernels, disassembled from the built divbench executable for
// every architecture it carries (CMAKE_CUDA_ARCHITECTURES): each divergent variant really
// branches inside a BSSY/BSYNC region (inside its loop over paths), and each predicated twin
// branches no more than its one-arm baseline (the region timer's lane-0 store and the uniform
// iteration loop are the only branches they share).
//
// Adding a kernel to the check is one line in kChecks below.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

#include "divbench/sass/analysis.hpp"
#include "divbench/sass/nvdisasm.hpp"

using namespace divbench::sass;

namespace {

struct Check {
  const char* kernel;    // substring of the mangled name; every match is checked
  const char* baseline;  // for twins: the kernel they are compared with ("" when none)
  std::function<bool(const FunctionAnalysis& f, const FunctionAnalysis* baseline)> ok;
  const char* expectation;
};

const std::vector<Check>& checks() {
  static const std::vector<Check> v = {
      // k-way: `for q < k: if (path == q) {...}`: a real branch in a barrier region inside the loop.
      {"kway_kernel", "",
       [](const FunctionAnalysis& f, const FunctionAnalysis*) { return guarded_divergent_branches_in_loops(f) >= 1; },
       "a guarded divergent branch inside the loop over paths"},
#ifdef DIVBENCH_HAVE_PREDICATION
      // Predication: the branchy kernel is a loop over arms with `if (arm == q)` like k-way ...
      {"pred_branchy_kernel", "",
       [](const FunctionAnalysis& f, const FunctionAnalysis*) { return guarded_divergent_branches_in_loops(f) >= 1; },
       "a guarded divergent branch inside the loop over arms"},
      // ... and every select twin branches no more than its one-arm form (K = 1, the baseline).
      {"pred_select_kernel", "pred_select_kernelILi1ELi0EE",
       [](const FunctionAnalysis& f, const FunctionAnalysis* b) { return branches_no_more_than(f, *b); },
       "no more divergent branches than pred_select_kernel<1, placement 0>"},
#endif
  };
  return v;
}

bool tools_or_skip(std::string& nvdisasm) {
  nvdisasm = locate_tool("nvdisasm");
  const bool have = !nvdisasm.empty() && !locate_tool("cuobjdump").empty();
  const char* req = std::getenv("DIVBENCH_REQUIRE_NVDISASM");
  if (!have && req && std::string(req) == "1") ADD_FAILURE() << "nvdisasm/cuobjdump not found but DIVBENCH_REQUIRE_NVDISASM=1";
  return have;
}

}  // namespace

TEST(SassSelfCheck, TimedKernelsDivergeAndTwinsDoNot) {
  std::string nd;
  if (!tools_or_skip(nd)) GTEST_SKIP() << "nvdisasm or cuobjdump not found";
  TempDir tmp;
  const auto cubins = load_cubins(DIVBENCH_EXECUTABLE, nd, tmp);
  ASSERT_FALSE(cubins.empty());
  std::vector<CubinAnalysis> analyses;
  for (const auto& c : cubins) analyses.push_back(analyze(c));
  for (const auto& check : checks()) {
    int matched = 0;
    for (const auto& a : analyses) {
      const auto fns = functions_matching(a, check.kernel);
      const FunctionAnalysis* base = nullptr;
      if (*check.baseline) {
        const auto b = functions_matching(a, check.baseline);
        if (!fns.empty()) {
          ASSERT_EQ(b.size(), 1u) << check.baseline << " in " << a.cubin->path;
        }
        if (!b.empty()) base = b.front();
      }
      for (const auto* f : fns) {
        ++matched;
        EXPECT_TRUE(check.ok(*f, base)) << f->function->name << " (sm_" << a.cubin->sm << "): expected "
                                        << check.expectation << "; has " << guarded_divergent_branches(*f)
                                        << " guarded (" << guarded_divergent_branches_in_loops(*f) << " in loops) of "
                                        << f->placement.counts.divergent_branches
                                        << " divergent branches";
      }
    }
    EXPECT_GT(matched, 0) << "no kernel matching '" << check.kernel << "' in " << DIVBENCH_EXECUTABLE;
    std::printf("checked %d instance(s) of %s\n", matched, check.kernel);
  }
}
