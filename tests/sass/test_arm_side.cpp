// model::arm_side on hand-made "divbench.kernels/1" facts (no nvdisasm needed): the fall-through arm
// from the calls on each side of the branch, the BSSY guard, and the errors when the function or
// the branch cannot be told apart (none or two functions match, arms merged onto one side, another
// architecture); which side lies at the lower address, from the sides' addresses.
#include <gtest/gtest.h>

#include "divbench/model/arm_side.hpp"

using namespace divbench;
using namespace divbench::model;

namespace {

const ArmBranch kQuery{{"order_kernelILb0E"}, "order_armILi0E", "order_armILi1E"};
const std::string kThen = "$_ZN8divbench8progress12order_kernelILb0EE$_ZN8divbench8progress9order_armILi0ELb0EEEv";
const std::string kElse = "$_ZN8divbench8progress12order_kernelILb0EE$_ZN8divbench8progress9order_armILi1ELb0EEEv";

json branch(std::uint64_t offset, json ft_calls, json taken_calls, json bssy) {
  return json{{"offset", offset},
              {"bssy", bssy},
              {"sides", {{"fallthrough", {{"calls", ft_calls}}}, {"taken", {{"calls", taken_calls}}}}}};
}

json facts(int sm, json branches, const std::string& name = "_ZN8divbench8progress12order_kernelILb0EEEvPKj") {
  return json{{"schema", "divbench.kernels/1"},
              {"cubins", json::array({json{{"sm", sm},
                                           {"functions", json::array({json{{"name", name},
                                                                           {"divergent_branches", branches}}})}}})}};
}

}  // namespace

TEST(ArmSide, ThenArmOnTheFallThroughWithBssy) {
  // A lane-0 store branch with no calls is ignored; the arm branch is found.
  const json f = facts(90, json::array({branch(0x40, json::array(), json::array(), json::array({nullptr})),
                                        branch(0xf0, json::array({kThen}), json::array({kElse}), json::array({0xc0}))}));
  const ArmSideResult r = arm_side(f, 90, kQuery);
  ASSERT_TRUE(r.side) << r.error;
  EXPECT_EQ(r.side->fallthrough_arm, "then");
  EXPECT_TRUE(r.side->bssy_guarded);
  EXPECT_EQ(r.side->branch, 0xf0u);
}

TEST(ArmSide, ElseArmOnTheFallThroughWithoutBssy) {
  const json f = facts(100, json::array({branch(0xe0, json::array({kElse}), json::array({kThen}), json::array({nullptr}))}));
  const ArmSideResult r = arm_side(f, 100, kQuery);
  ASSERT_TRUE(r.side) << r.error;
  EXPECT_EQ(r.side->fallthrough_arm, "else");
  EXPECT_FALSE(r.side->bssy_guarded);
}

TEST(ArmSide, WhichSideLiesBelow) {
  // The branch's fall-through and taken addresses, when the facts give them: a forward branch (the
  // fall-through side is the lower address) and the bssy_backward shape (the then arm's call above
  // the branch, reached by a backward branch: the taken side is the lower address).
  json fwd = branch(0xf0, json::array({kThen}), json::array({kElse}), json::array({0xc0}));
  fwd["fallthrough"] = 0x100;
  fwd["taken"] = json::array({0x140});
  ArmSideResult r = arm_side(facts(90, json::array({fwd})), 90, kQuery);
  ASSERT_TRUE(r.side) << r.error;
  EXPECT_EQ(r.side->fallthrough_at, std::optional<std::uint64_t>(0x100));
  EXPECT_EQ(r.side->taken_at, std::optional<std::uint64_t>(0x140));
  EXPECT_EQ(r.side->taken_below_fallthrough(), std::optional<bool>(false));
  json back = branch(0x4c0, json::array({kElse}), json::array({kThen}), json::array({0x4b0}));
  back["fallthrough"] = 0x4d0;
  back["taken"] = json::array({0x430});
  r = arm_side(facts(90, json::array({back})), 90, kQuery);
  ASSERT_TRUE(r.side) << r.error;
  EXPECT_EQ(r.side->fallthrough_arm, "else");
  EXPECT_EQ(r.side->taken_below_fallthrough(), std::optional<bool>(true));
  // No addresses (or a branch with several targets): unknown, not assumed.
  back["taken"] = json::array({0x430, 0x600});
  r = arm_side(facts(90, json::array({back})), 90, kQuery);
  ASSERT_TRUE(r.side) << r.error;
  EXPECT_FALSE(r.side->taken_below_fallthrough());
  r = arm_side(facts(90, json::array({branch(0xf0, json::array({kThen}), json::array({kElse}), json::array())})), 90,
               kQuery);
  ASSERT_TRUE(r.side) << r.error;
  EXPECT_FALSE(r.side->taken_below_fallthrough());
}

TEST(ArmSide, ErrorsInsteadOfGuesses) {
  const json ok = facts(90, json::array({branch(0xf0, json::array({kThen}), json::array({kElse}), json::array())}));
  EXPECT_FALSE(arm_side(ok, 80, kQuery).side);  // no sm_80 cubin
  EXPECT_NE(arm_side(ok, 80, kQuery).error.find("0 functions match"), std::string::npos);
  EXPECT_FALSE(arm_side(ok, 90, {{"order_kernelILb1E"}, "order_armILi0E", "order_armILi1E"}).side);
  // Both calls on the fall-through side (merged or nested arms): no answer.
  const json merged = facts(90, json::array({branch(0xf0, json::array({kThen, kElse}), json::array(), json::array())}));
  const ArmSideResult m = arm_side(merged, 90, kQuery);
  EXPECT_FALSE(m.side);
  EXPECT_NE(m.error.find("0 divergent branches"), std::string::npos);
  // Two functions match the needles.
  json two = ok;
  two["cubins"][0]["functions"].push_back(two["cubins"][0]["functions"][0]);
  EXPECT_NE(arm_side(two, 90, kQuery).error.find("2 functions match"), std::string::npos);
  EXPECT_FALSE(arm_side(json::object(), 90, kQuery).side);
}

TEST(ArmSide, ALatchInsideAnEarlierBssyRegionIsGuarded) {
  // The loop kernels' shape: the BSSY at 0xd0 guards the loop's exit test (0x130, its BSYNC "at" its
  // ipdom 0x180); the latch (0x150, backward to the then arm) has no BSSY of its own but reconverges at
  // the same BSYNC: the BSSY form.
  json exit_test = branch(0x130, json::array({kElse}), json::array(), json::array({0xd0}));
  exit_test["placement"] = json::array({"at"});
  exit_test["ipdom"] = 0x180;
  json latch = branch(0x150, json::array({kElse}), json::array({kThen}), json::array({nullptr}));
  latch["placement"] = json::array({"unguarded"});
  latch["ipdom"] = 0x180;
  latch["fallthrough"] = 0x160;
  latch["taken"] = json::array({0xf0});
  ArmSideResult r = arm_side(facts(90, json::array({exit_test, latch})), 90, kQuery);
  ASSERT_TRUE(r.side) << r.error;
  EXPECT_EQ(r.side->branch, 0x150u);
  EXPECT_TRUE(r.side->bssy_guarded);
  EXPECT_EQ(r.side->taken_below_fallthrough(), std::optional<bool>(true));
  // The same BSYNC placed "after" (not at) the post-dominator, another post-dominator, or the BSSY
  // below the branch: not the BSSY form.
  for (int variant = 0; variant < 3; ++variant) {
    json e = exit_test, l = latch;
    if (variant == 0) e["placement"] = json::array({"after"});
    if (variant == 1) e["ipdom"] = 0x1a0;
    if (variant == 2) e["bssy"] = json::array({0x170});
    r = arm_side(facts(90, json::array({e, l})), 90, kQuery);
    ASSERT_TRUE(r.side) << r.error;
    EXPECT_FALSE(r.side->bssy_guarded) << "variant " << variant;
  }
}
