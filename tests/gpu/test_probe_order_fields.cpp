// The order fields of the lock and peer-wait probes, through the harness on a real GPU (the order
// probe's own GPU tests are in experiments/order/tests/gpu/).
#include <gtest/gtest.h>

#include "tests/gpu/gpu_fixture.hpp"

namespace divbench {
namespace {

using namespace test;

// (producer/consumer through the harness runs W = 10^7: that is the GPU stage's; its fields are
// tested on synthetic points in experiments/order/tests/test_order_probe.cpp)
TEST(ProbeOrderFields, LockAndPeerWaitRecordThem) {
  CommandLine o;
  o.set("--reps", "1");
  const ResultRecord lock = run_probe("lock", o);
  for (const auto& p : lock.points_extra) {
    expect_side_fields(p);
    EXPECT_TRUE(p["group_side"].is_null());  // the lock's sides are inlined: not named by the SASS
  }
  const ResultRecord peer = run_probe("peer_wait", o);
  ASSERT_EQ(peer.points_extra.size(), 1u);
  expect_side_fields(peer.points_extra[0]);
  EXPECT_EQ(peer.points_extra[0]["group_lanes"].size(), 16u);
  EXPECT_EQ(peer.summary["group_position"], "scattered");
  if (test::cc_major() >= 7) EXPECT_FALSE(peer.points_extra[0]["first"].is_null());
}

}  // namespace
}  // namespace divbench
