// The peer-wait probe's kernel on a real GPU: it completes under independent thread scheduling, and
// its cap bounds every wait (the probe returns, it does not hang).
#include <gtest/gtest.h>

#include "experiments/peer_wait/launcher.hpp"
#include "tests/gpu/gpu_fixture.hpp"

namespace divbench {
namespace {

using namespace test;

TEST(Progress, PeerWaitCompletesUnderIts) {
  const PeerWaitRun run = run_peer_wait_probe(4, ProbeCaps{});
  ASSERT_EQ(run.lanes.size(), 32u);
  if (test::cc_major() < 7) GTEST_SKIP() << "pre-ITS GPU: the cap is the expected outcome";
  for (int lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(run.lanes[lane].capped, 0u) << "lane " << lane;
    EXPECT_EQ(run.lanes[lane].rounds_done, 4u) << "lane " << lane;
    EXPECT_EQ(run.lanes[lane].side, static_cast<std::uint32_t>(lane & 1));
  }
  EXPECT_EQ(run.ping, 4u);
  EXPECT_EQ(run.pong, 4u);
}

TEST(Progress, PeerWaitCapBoundsTheWait) {
  // With a zero-length deadline every wait gives up at once: the probe returns, it does not hang.
  ProbeCaps caps;
  caps.max_ns = 0;
  caps.max_spins = 1;
  const PeerWaitRun run = run_peer_wait_probe(4, caps);
  bool any_capped = false;
  for (const auto& l : run.lanes) any_capped = any_capped || l.capped == 1;
  EXPECT_TRUE(any_capped);
}

}  // namespace
}  // namespace divbench
