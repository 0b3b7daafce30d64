// The path-scheduling-order probe and the order fields of the other probes on a real GPU, small
// (docs/dynamic.md, "Path-scheduling order"): every lane records its entry from the arm its group sends it to, the two sides enter
// at different clocks, the producer/consumer majority variant verifies, and the experiments run
// end to end through plan() and finalize() with the six fields in every point.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>

#include "divbench/core/lane_group.hpp"
#include "divbench/core/side_order.hpp"
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_info.hpp"
#include "gpu_fixture.hpp"
#include "experiments/order/launcher.hpp"
#include "divbench/kernels/progress.hpp"
#include "experiments/producer_consumer/launcher.hpp"
#include "harness/experiment.hpp"

namespace divbench {
namespace {

using test::device;

ResultRecord run_probe(const std::string& name, RunOptions o) { return test::run_experiment("probe", name, std::move(o)); }

void expect_side_fields(const json& p) {
  for (const auto& k : side_order_keys()) EXPECT_TRUE(p.contains(k)) << k << " in " << p.dump().substr(0, 200);
}

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
  RunOptions o;
  o.given = {"--k", "--reps"};
  o.ks = {1, 16};
  o.reps = 2;
  const ResultRecord r = run_probe("order", o);
  ASSERT_EQ(r.points_extra.size(), 2u * 3u * 2u * 3u);  // sizes x positions x arms x forms (kernels)
  int below = 0;
  for (const auto& p : r.points_extra) {
    expect_side_fields(p);
    EXPECT_FALSE(p["first"].is_null());
    EXPECT_EQ(p["runs"].size(), 2u);
    ASSERT_TRUE(p["layout"].contains("taken_below_fallthrough"));
    // Where the build's SASS describes this device, bssy_backward (and only it) has the taken side below.
    if (p["layout_verified"].get<bool>()) {
      EXPECT_EQ(p["layout"]["taken_below_fallthrough"], p["order_form"] == "bssy_backward") << p["order_form"];
      EXPECT_EQ(p["taken_below_matches_intent"], true);
    }
    below += p["layout"]["taken_below_fallthrough"] == true ? 1 : 0;
  }
  EXPECT_FALSE(r.summary["rule"].get<std::string>().empty());
  EXPECT_EQ(r.summary["points_fitted"], 36);
  EXPECT_EQ(r.summary["rules"].size(), 9u);
  EXPECT_EQ(r.summary["points_taken_below"], below);
  EXPECT_TRUE(r.summary["ties"].contains("verdict"));
  EXPECT_TRUE(r.summary.contains("first_consistent_across_launches"));
  EXPECT_FALSE(r.summary["cap_reached"].get<bool>());
}

TEST(ProducerConsumer, MajorityProducersPublishAndTheConsumerReadsTheirSum) {
  const std::uint32_t producers = 0x7fffffffu;  // lanes 0..30; lane 31 consumes
  for (bool in_then : {true, false}) {
    SCOPED_TRACE(in_then ? "producers in then-arm" : "producers in else-arm");
    const PcRun run = run_producer_consumer_probe(in_then, producers, 500, ProbeCaps{});
    EXPECT_EQ(run.published, 31u);
    float sum = 0;
    for (int lane = 0; lane < 31; ++lane) {
      const float want = probe_work_reference(lane, 500);
      EXPECT_EQ(run.lanes[lane].role, 1u);
      EXPECT_EQ(0, std::memcmp(&want, &run.lanes[lane].value, sizeof want)) << "lane " << lane;
      sum = lane == 0 ? want : sum + want;
    }
    const PcLane& c = run.lanes[31];
    EXPECT_EQ(c.role, 2u);
    EXPECT_EQ(c.side, in_then ? 1u : 0u);
    if (test::cc_major() >= 7) {
      EXPECT_EQ(c.capped, 0u);
      EXPECT_EQ(0, std::memcmp(&sum, &c.value, sizeof sum));
    }
  }
  EXPECT_THROW(run_producer_consumer_probe(true, 0u, 10, ProbeCaps{}), std::invalid_argument);
}

// (producer/consumer through the harness runs W = 10^7: that is the GPU stage's; its fields are
// tested on synthetic points in experiments/order/tests/test_order_probe.cpp)
TEST(ProbeOrderFields, LockAndPeerWaitRecordThem) {
  RunOptions o;
  o.given = {"--reps"};
  o.reps = 1;
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
