// The lock probe's kernel on a real GPU: in both forms every lane is served once, in a mutual-exclusion
// order, with the critical section's value of the host reference.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "divbench/kernels/progress.hpp"
#include "experiments/lock/launcher.hpp"
#include "tests/gpu/gpu_fixture.hpp"

namespace divbench {
namespace {

using namespace test;

TEST(Progress, LockServesAllLanesInBothForms) {
  for (LockForm f : {LockForm::release_in_branch, LockForm::release_after_loop}) {
    SCOPED_TRACE(lock_form_name(f));
    const LockRun run = run_lock_probe(f, 10, ProbeCaps{});
    ASSERT_EQ(run.lanes.size(), 32u);
    std::vector<int> seen(32, 0);
    int served = 0;
    for (int lane = 0; lane < 32; ++lane) {
      const LockLane& l = run.lanes[lane];
      if (l.acquired != 1) continue;
      ++served;
      ASSERT_LT(l.order, 32u);
      ++seen[l.order];
      const float want = probe_work_reference(lane, 10);
      EXPECT_EQ(0, std::memcmp(&want, &l.value, sizeof want));
    }
    EXPECT_EQ(run.counter, static_cast<std::uint32_t>(served));
    EXPECT_EQ(run.lock_after, 0u);
    if (test::cc_major() >= 7 || f == LockForm::release_in_branch) {
      EXPECT_EQ(served, 32);
      for (int o = 0; o < 32; ++o) EXPECT_EQ(seen[o], 1) << "order " << o;
    }
  }
}

}  // namespace
}  // namespace divbench
