// The path-scheduling-order probe on a real GPU, small (docs/dynamic.md, "Path-scheduling order"): every
// lane records its entry from the arm its group sends it to, the two sides enter at different clocks,
// and the probe runs end to end through plan() and finalize() with the order fields in every point.
#include <gtest/gtest.h>

#include "divbench/core/lane_group.hpp"
#include "divbench/core/side_order.hpp"
#include "experiments/order/launcher.hpp"
#include "tests/gpu/gpu_fixture.hpp"

namespace divbench {
namespace {

using namespace test;

TEST(OrderProbe, EveryLaneRecordsItsArmAndTheSidesEnterApart) {
  for (OrderForm form : all_order_forms())
    for (int g : {1, 16, 31})
      for (GroupPosition pos : all_group_positions())
        for (bool in_then : {true, false}) {
          SCOPED_TRACE(std::string(order_form_name(form)) + " g=" + std::to_string(g) + " " +
                       group_position_name(pos) + (in_then ? " then" : " else"));
          const std::uint32_t group = group_mask(g, pos);
          const std::uint32_t then_mask = in_then ? group : ~group;
          const OrderRun run = run_order_probe(form, then_mask, ProbeCaps{});
          ASSERT_EQ(run.lanes.size(), 32u);
          std::vector<std::uint64_t> clk;
          for (int lane = 0; lane < 32; ++lane) {
            const OrderLane& l = run.lanes[lane];
            EXPECT_EQ(l.arm, mask_has_lane(then_mask, lane) ? 0u : 1u) << "lane " << lane;
            EXPECT_EQ(l.flag_seen, 1u);
            EXPECT_EQ(l.spins, 0u);
            EXPECT_EQ(l.capped, 0u);
            EXPECT_GT(l.enter_clk, 0u);
            clk.push_back(l.enter_clk);
          }
          const EntryOrder e = entry_order(clk, group);
          EXPECT_TRUE(e.first.has_value()) << "both sides entered at the same clock";
          EXPECT_GT(e.cycles_between, 0u);
        }
}

TEST(OrderProbe, RunsEndToEndSmall) {
  CommandLine o;
  o.set("--k", "1,16");
  o.set("--reps", "2");
  const ResultRecord r = run_probe("order", o);
  const std::size_t points = 2u * 3u * 2u * all_order_forms().size();  // sizes x positions x arms x forms (kernels)
  ASSERT_EQ(all_order_forms().size(), 5u);
  ASSERT_EQ(r.points_extra.size(), points);
  int below = 0;
  for (const auto& p : r.points_extra) {
    expect_side_fields(p);
    EXPECT_FALSE(p["first"].is_null());
    EXPECT_EQ(p["runs"].size(), 2u);
    ASSERT_TRUE(p["layout"].contains("taken_below_fallthrough"));
    // Where the build's SASS describes this device, bssy_backward and the loop kernels (and only they) have
    // the taken side below.
    if (p["layout_verified"].get<bool>()) {
      // warpsync_loop on sm_70 and sm_75: the compiler rotates the loop (tests/sass/test_probe_layout.cpp).
      const int cc = device().cc_major * 10 + device().cc_minor;
      const bool rotated = p["order_form"] == "warpsync_loop" && (cc == 70 || cc == 75);
      EXPECT_EQ(p["layout"]["taken_below_fallthrough"], !rotated && (p["order_form"] == "bssy_backward" ||
                                                                     p["order_form"] == "bssy_loop" ||
                                                                     p["order_form"] == "warpsync_loop"))
          << p["order_form"];
      EXPECT_EQ(p["taken_below_matches_intent"], !rotated);
    }
    below += p["layout"]["taken_below_fallthrough"] == true ? 1 : 0;
  }
  EXPECT_FALSE(r.summary["rule"].get<std::string>().empty());
  EXPECT_EQ(r.summary["points_fitted"], points);
  // g = 16 ties at three branch sites with the taken side below (bssy_backward, bssy_loop, warpsync_loop)
  // where the build's SASS describes this device.
  const int cc = device().cc_major * 10 + device().cc_minor;
  if (r.summary["layout_verified"].get<bool>())
    EXPECT_EQ(r.summary["ties"]["sites_taken_below"], cc == 70 || cc == 75 ? 2 : 3);
  EXPECT_EQ(r.summary["rules"].size(), 9u);
  EXPECT_EQ(r.summary["points_taken_below"], below);
  EXPECT_TRUE(r.summary["ties"].contains("verdict"));
  EXPECT_TRUE(r.summary.contains("first_consistent_across_launches"));
  EXPECT_FALSE(r.summary["cap_reached"].get<bool>());
}

}  // namespace
}  // namespace divbench
