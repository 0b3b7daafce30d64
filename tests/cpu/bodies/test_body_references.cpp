// The host references that GPU outputs are checked against must be sensitive to the work done:
// a kernel that ran one iteration too few (or none) must not match. Host code only; no GPU.
#include <gtest/gtest.h>

#include <cstring>

#include "divbench/core/lane_map.hpp"
#include "experiments/kway/launcher.hpp"

using namespace divbench;

namespace {
KwayParams params(Body b, int k, std::uint32_t iters) {
  LaneAssignment a = assign_lanes(LaneMap::modulo, k, iters > 0 ? iters : 1, 1);
  if (iters == 0) a.iters_of_path.fill(0);  // "did nothing"
  return make_kway_params(b, k, a);
}
bool same(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
}  // namespace

TEST(BodyReferences, EveryLaneDependsOnTheIterationCount) {
  for (Body b : all_bodies()) {
    if (kway_tolerance(b) != 0) continue;  // approximate bodies (sfu) are checked with a tolerance
    for (std::uint32_t iters : {1000u, 10000u}) {
      const KwayParams p = params(b, 8, iters), q = params(b, 8, iters + 1), z = params(b, 8, 0);
      for (int lane = 0; lane < 32; ++lane) {
        const float r = kway_reference(b, p, lane);
        EXPECT_FALSE(same(r, kway_reference(b, q, lane))) << body_name(b) << " lane " << lane;
        EXPECT_FALSE(same(r, kway_reference(b, z, lane))) << body_name(b) << " lane " << lane;
      }
    }
  }
}

TEST(BodyReferences, TheControlRunsTheBodyOncePerPathOnEveryLane) {
  for (Body b : all_bodies()) {
    if (kway_tolerance(b) != 0) continue;
    const KwayParams one = make_kway_control_params(b, 1, 1000), three = make_kway_control_params(b, 3, 1000);
    const KwayParams more = make_kway_control_params(b, 3, 1001);
    for (int lane = 0; lane < 32; ++lane) {
      EXPECT_EQ(one.path_of_lane[lane], kControlPath);
      const float x = kway_control_reference(b, one, lane);  // one step against three
      const float r3 = kway_control_reference(b, three, lane);
      EXPECT_FALSE(same(x, r3)) << body_name(b) << " lane " << lane;
      EXPECT_FALSE(same(r3, kway_control_reference(b, more, lane))) << body_name(b) << " lane " << lane;
    }
    EXPECT_EQ(three.mask_of_path[kControlPath % 32], 0xffffffffu);
    EXPECT_EQ(three.iters_of_path[kControlPath % 32], 1000u);
  }
  EXPECT_THROW(make_kway_control_params(Body::fma_chain, 0, 1), std::invalid_argument);
  EXPECT_THROW(make_kway_control_params(Body::fma_chain, 33, 1), std::invalid_argument);
}

TEST(BodyReferences, TheSlotControlsRunTheSameWorkAsTheControl) {
  // Both runs of kway_control_slots_kernel read slots holding the control's values: their lanes must
  // produce what the control's do; only the lanes' path (kControlPath or kControlPath + 31, the
  // slot mask) differs.
  for (Body b : all_bodies()) {
    if (kway_tolerance(b) != 0) continue;
    const KwayParams ctl = make_kway_control_params(b, 7, 100);
    const KwayParams q = make_kway_control_params(b, 7, 100, KwayRegion::control_slot_q);
    const KwayParams z = make_kway_control_params(b, 7, 100, KwayRegion::control_slot_0);
    for (int lane = 0; lane < 32; ++lane) {
      EXPECT_EQ(q.path_of_lane[lane], kControlPath + 31);
      EXPECT_EQ(z.path_of_lane[lane], kControlPath);
      const float want = kway_control_reference(b, ctl, lane);
      EXPECT_TRUE(same(want, kway_control_reference(b, q, lane, KwayRegion::control_slot_q))) << body_name(b);
      EXPECT_TRUE(same(want, kway_control_reference(b, z, lane, KwayRegion::control_slot_0))) << body_name(b);
    }
    for (int slot = 0; slot < 32; ++slot) {
      EXPECT_EQ(q.iters_of_path[slot], 100u);
      EXPECT_EQ(q.mask_of_path[slot], 0xffffffffu);
    }
  }
  EXPECT_THROW(make_kway_control_params(Body::fma_chain, 3, 1, KwayRegion::divergent), std::invalid_argument);
}
