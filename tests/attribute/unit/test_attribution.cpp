// `divbench attribute` without a GPU: the branch table of a hand-made function and the estimate on
// recorded counts (docs/attribute.md gives the definitions these numbers are computed from).
#include <gtest/gtest.h>

#include "divbench/attribute/attribution.hpp"
#include "divbench/attribute/report.hpp"
#include "divbench/core/errors.hpp"
#include "attribute_constants.hpp"
#include "fixture_util.hpp"

namespace {

using namespace divbench;
using namespace divbench::sass::test;

model::CostConstants constants() { return attribute_constants(); }

// diamond: 0x20 @P0 BRA 0x50 | 0x30 IADD3, 0x40 BRA 0x60 | 0x50 IADD3 | 0x60 BSYNC (the IPDom)
attribute::FunctionCounts diamond_counts(std::uint64_t warps, std::uint64_t taken_lanes, bool divergent) {
  attribute::FunctionCounts c;
  c.name = "diamond";
  const std::uint64_t fall_lanes = 32 - taken_lanes;
  c.pcs[0x00] = {warps, 32 * warps, 32 * warps, 0, 0};
  c.pcs[0x10] = {warps, 32 * warps, 32 * warps, 0, 0};
  c.pcs[0x20] = {warps, 32 * warps, 32 * warps, divergent ? warps : 0, divergent ? 0 : warps};
  if (fall_lanes) {
    c.pcs[0x30] = {warps, fall_lanes * warps, fall_lanes * warps, 0, 0};
    c.pcs[0x40] = {warps, fall_lanes * warps, fall_lanes * warps, 0, warps};
  }
  if (taken_lanes) c.pcs[0x50] = {warps, taken_lanes * warps, taken_lanes * warps, 0, 0};
  c.pcs[0x60] = {2 * warps, 32 * warps, 32 * warps, 0, 0};  // the BSYNC runs once per arriving path
  c.pcs[0x70] = {warps, 32 * warps, 32 * warps, 0, 0};      // reconverged: "after" is read here
  return c;
}

TEST(AttributeTable, DiamondBranchIpdomAndRegion) {
  auto l = load_analyzed("diamond");
  const auto t = attribute::branch_table(l->a, 90, {});
  ASSERT_EQ(t.branches.size(), 1u);
  const auto& b = t.branches[0];
  EXPECT_EQ(b.pc, 0x20u);
  ASSERT_TRUE(b.ipdom.has_value());
  EXPECT_EQ(*b.ipdom, 0x60u);
  EXPECT_EQ(b.placement, "at");
  EXPECT_TRUE(b.guarded);
  EXPECT_EQ(b.nesting, 0);
  EXPECT_EQ(b.region, (std::vector<std::size_t>{3, 4, 5}));  // both sides, not the BSYNC
  const json j = attribute::to_json(t);
  EXPECT_EQ(j["branches"][0]["pc"], 0x20);
  EXPECT_EQ(j["branches"][0]["ipdom"], 0x60);
  EXPECT_TRUE(j["branches"][0]["source"].is_null());  // no line table in the fixture
}

TEST(AttributeEstimate, DivergentDiamondByHand) {
  auto l = load_analyzed("diamond");
  const auto t = attribute::branch_table(l->a, 90, {});
  const auto costs = model::issue_costs(l->f, constants());
  // No control words in the fixture: 1 cycle per instruction, + B = 5 for the BRA at 0x40.
  EXPECT_DOUBLE_EQ(costs[3].cycles, 1);
  EXPECT_DOUBLE_EQ(costs[4].cycles, 6);
  EXPECT_TRUE(costs[3].no_control);
  const auto counts = diamond_counts(10, 12, true);
  const auto k = attribute::attribute_kernel(t, counts, l->f, costs);
  ASSERT_EQ(k.branches.size(), 1u);
  const auto& c = k.branches[0];
  EXPECT_EQ(c.executions, 10u);
  EXPECT_EQ(c.divergent, 10u);
  EXPECT_DOUBLE_EQ(*c.paths_mean, 2.0);
  EXPECT_DOUBLE_EQ(c.active_before, 32.0);
  // Region: 0x30 and 0x40 run by 20 lanes, 0x50 by 12, each once per warp.
  EXPECT_EQ(c.region_warp_instructions, 30u);
  EXPECT_EQ(c.region_thread_instructions, 520u);
  EXPECT_NEAR(*c.active_inside, 520.0 / 30.0, 1e-12);
  EXPECT_NEAR(*c.region_efficiency, 520.0 / 960.0, 1e-12);
  ASSERT_TRUE(c.active_after.has_value());
  EXPECT_DOUBLE_EQ(*c.active_after, 32.0);
  // Excess: (10 - 200/32) * 2 + (10 - 120/32) = 3.75 * 2 + 6.25; cycles 3.75*1 + 3.75*6 + 6.25*1.
  EXPECT_NEAR(c.excess_warp_instructions, 13.75, 1e-12);
  EXPECT_NEAR(c.cycles_lost, 32.5, 1e-12);
  EXPECT_FALSE(c.lower_bound);
  EXPECT_NEAR(k.cycles_lost, 32.5, 1e-12);
  EXPECT_EQ(k.warps, 10u);
}

TEST(AttributeEstimate, UniformDiamondLosesNothing) {
  auto l = load_analyzed("diamond");
  const auto t = attribute::branch_table(l->a, 90, {});
  const auto costs = model::issue_costs(l->f, constants());
  // Half the warps take each side whole: no warp is split.
  auto counts = diamond_counts(10, 0, false);
  counts.pcs[0x50] = {5, 160, 160, 0, 0};
  counts.pcs[0x30] = {5, 160, 160, 0, 0};
  counts.pcs[0x40] = {5, 160, 160, 0, 5};
  const auto k = attribute::attribute_kernel(t, counts, l->f, costs);
  EXPECT_EQ(k.branches[0].divergent, 0u);
  EXPECT_NEAR(k.branches[0].cycles_lost, 0.0, 1e-12);
  EXPECT_NEAR(k.cycles_lost, 0.0, 1e-12);
  EXPECT_EQ(attribute::ranked({k}).size(), 0u);
}

TEST(AttributeEstimate, PartialWarpOnArrivalNormalisesByActiveLanes) {
  // 16 lanes arrive (an outer branch left the others); 8 take each side: the loss is one extra pass
  // over one side's instructions, not what a full warp would lose.
  auto l = load_analyzed("diamond");
  const auto t = attribute::branch_table(l->a, 90, {});
  const auto costs = model::issue_costs(l->f, constants());
  attribute::FunctionCounts c;
  c.pcs[0x20] = {4, 64, 64, 4, 0};
  c.pcs[0x30] = {4, 32, 32, 0, 0};
  c.pcs[0x40] = {4, 32, 32, 0, 4};
  c.pcs[0x50] = {4, 32, 32, 0, 0};
  const auto k = attribute::attribute_kernel(t, c, l->f, costs);
  const auto& b = k.branches[0];
  EXPECT_DOUBLE_EQ(b.active_before, 16.0);
  EXPECT_NEAR(b.excess_warp_instructions, 3 * (4 - 32.0 / 16.0), 1e-12);
  EXPECT_NEAR(b.cycles_lost, 2 * 1 + 2 * 6 + 2 * 1, 1e-12);
}

TEST(AttributeCounts, RowsRoundTripAndImpossibleCountsRefused) {
  attribute::FunctionCounts f;
  f.crc = 7;
  f.name = "k";
  f.pcs[0x10] = {3, 96, 90, 1, 2};
  const auto back = attribute::function_counts_from_json(attribute::to_json(f));
  EXPECT_EQ(back.pcs.at(0x10).thread_inst, 96u);
  EXPECT_EQ(back.pcs.at(0x10).divergent, 1u);
  json bad = attribute::to_json(f);
  bad["pcs"][0][2] = 97;  // more than 32 threads per warp instruction
  EXPECT_THROW(attribute::function_counts_from_json(bad), UsageError);
  bad = attribute::to_json(f);
  bad["pcs"][0] = json::array({1, 2});
  EXPECT_THROW(attribute::function_counts_from_json(bad), UsageError);
}

TEST(AttributeCounts, SectorsColumnRoundTripsAndOlderRowsReadWithout) {
  attribute::FunctionCounts f;
  f.crc = 7;
  f.name = "k";
  f.pcs[0x10] = {3, 96, 90, 0, 0};
  f.pcs[0x20] = {3, 48, 48, 0, 0};
  f.pcs[0x20].sectors = 48;
  f.has_sectors = true;
  const json j = attribute::to_json(f);
  EXPECT_EQ(j["pcs"][0].size(), 7u);
  const auto back = attribute::function_counts_from_json(j);
  EXPECT_TRUE(back.has_sectors);
  EXPECT_EQ(back.pcs.at(0x20).sectors, 48u);
  // Six columns (a recording from before the metric): read, no sectors.
  f.has_sectors = false;
  const auto old = attribute::function_counts_from_json(attribute::to_json(f));
  EXPECT_FALSE(old.has_sectors);
  EXPECT_EQ(old.pcs.at(0x20).sectors, 0u);
  // One function's rows all alike: a seven-column row after a six-column one is refused.
  json mixed = attribute::to_json(f);
  mixed["pcs"][1].push_back(5);
  EXPECT_THROW(attribute::function_counts_from_json(mixed), UsageError);
  json negative = j;
  negative["pcs"][1][6] = -1;
  EXPECT_THROW(attribute::function_counts_from_json(negative), UsageError);
}

TEST(AttributeCounts, CountsAreUnsignedWithoutWrap) {
  attribute::FunctionCounts f;
  f.crc = 7;
  f.name = "k";
  f.pcs[0x10] = {3, 96, 90, 1, 2};
  const auto refused = [](const json& j, const std::string& part) {
    try {
      attribute::function_counts_from_json(j, "c.json", "/functions/0");
      ADD_FAILURE() << j.dump() << " accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  };
  for (int col = 0; col < 6; ++col)
    for (const json& v : {json(-1), json(1.5), json(1e30), json("3"), json(nullptr)}) {
      json bad = attribute::to_json(f);
      bad["pcs"][0][col] = v;
      refused(bad, "c.json: (/functions/0/pcs/0/" + std::to_string(col) + ") is ");
    }
  json bad = attribute::to_json(f);
  bad["crc"] = 4294967296ull;
  refused(bad, "(/functions/0/crc) is 4294967296, not a count");
  bad = attribute::to_json(f);
  bad["pcs"][0] = json::array({0x10, 3, 0, 0, 0, 0});
  refused(bad, "executed 3 times by no thread");
  bad = attribute::to_json(f);
  bad["pcs"].push_back(bad["pcs"][0]);
  refused(bad, "a second row for pc 16");
  const std::uint64_t half = std::uint64_t(1) << 63;
  bad = attribute::to_json(f);
  bad["pcs"] = json::array({json::array({0, half, half, 0, 0, 0}), json::array({16, half, half, 0, 0, 0})});
  refused(bad, "the sum passes 2^64-1");
}

TEST(AttributeCounts, MergeRefusesASumThatWouldWrap) {
  attribute::RunCounts a, b;
  attribute::FunctionCounts f;
  f.crc = 1;
  f.name = "k";
  f.pcs[0] = {std::uint64_t(1) << 63, std::uint64_t(1) << 63, 0, 0, 0};
  a.functions = {f};
  a.processes = 1;
  b.functions = {f};
  b.processes = 1;
  EXPECT_THROW(attribute::merge_counts(a, b), UsageError);
}

TEST(AttributeCounts, MergeSumsSameFunctionOfTwoProcesses) {
  attribute::RunCounts a, b;
  attribute::FunctionCounts f;
  f.crc = 1;
  f.name = "k";
  f.pcs[0] = {1, 32, 32, 0, 0};
  a.functions = {f};
  a.processes = 1;
  b.functions = {f};
  b.processes = 1;
  attribute::merge_counts(a, b);
  EXPECT_EQ(a.processes, 2);
  ASSERT_EQ(a.functions.size(), 1u);
  EXPECT_EQ(a.functions[0].pcs.at(0).inst, 2u);
}

TEST(AttributeCounts, LaunchSamplingScalesSampledKernelsOnly) {
  // k ran 3 launches, 1 counted; g ran 2, both counted; h (in a graph) has no launch count.
  attribute::RunCounts c;
  attribute::FunctionCounts k, g, h;
  k.name = "k";
  k.pcs[0] = {5, 149, 140, 3, 1};  // a two-way branch: 3 divergent + 1 uniform of 5
  k.pcs[0x10] = {5, 1, 1, 0, 0};
  k.pcs[0x10].sectors = 7;
  g.name = "g";
  g.pcs[0] = {4, 128, 128, 0, 0};
  h.name = "h";
  h.pcs[0] = {2, 64, 64, 0, 0};
  c.functions = {k, g, h};
  c.launches = {{"k", 3}, {"g", 2}};
  c.counted_launches = {{"k", 1}, {"g", 2}, {"h", 1}};
  c.sample_first = 2;
  const json e = attribute::extrapolate_sampled(c);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0]["name"], "k");
  EXPECT_DOUBLE_EQ(e[0]["factor"].get<double>(), 3.0);
  const auto& r = c.functions[0].pcs.at(0);
  EXPECT_EQ(r.inst, 15u);
  EXPECT_EQ(r.thread_inst, 447u);
  EXPECT_EQ(r.pred_on, 420u);
  EXPECT_EQ(r.divergent, 9u);
  EXPECT_EQ(r.uniform, 3u);
  EXPECT_EQ(c.functions[0].pcs.at(0x10).sectors, 21u);
  EXPECT_EQ(c.functions[1].pcs.at(0).inst, 4u);  // every launch counted: unchanged
  EXPECT_EQ(c.functions[2].pcs.at(0).inst, 2u);  // no launch count: unchanged
  // A factor that does not divide: instructions up, the rest down, so the invariants still hold.
  attribute::RunCounts d;
  attribute::FunctionCounts m;
  m.name = "m";
  m.pcs[0] = {3, 96, 95, 2, 1};
  d.functions = {m};
  d.launches = {{"m", 5}};
  d.counted_launches = {{"m", 3}};
  attribute::extrapolate_sampled(d);
  const auto& q = d.functions[0].pcs.at(0);
  EXPECT_EQ(q.inst, 5u);
  EXPECT_LE(q.thread_inst, 32 * q.inst);
  EXPECT_LE(q.pred_on, q.thread_inst);
  EXPECT_LE(q.divergent + q.uniform, q.inst);
  EXPECT_NO_THROW(attribute::function_counts_from_json(attribute::to_json(d.functions[0])));
}

TEST(AttributeCounts, LaunchSamplingIsReadAndMerged) {
  json doc = {{"schema", "divbench.attribute_counts/1"}, {"device", json::object()}, {"metrics", json::array()},
              {"cubins", json::array()}, {"functions", json::array()}, {"launches", {{"k", 3}}},
              {"launch_sampling", {{"first", 1}, {"counted_launches", {{"k", 1}}}, {"closed", true}}}};
  auto a = attribute::counts_from_json(doc, "a/counts-1.json");
  EXPECT_EQ(a.sample_first, 1u);
  EXPECT_EQ(a.counted_launches.at("k"), 1u);
  json later = doc;
  later.erase("launches");  // a later run of the sampling leaves the launches to the first
  later["launch_sampling"]["counted_launches"] = {{"g", 2}};
  attribute::merge_counts(a, attribute::counts_from_json(later, "b/counts-2.json"));
  EXPECT_EQ(a.launches.at("k"), 3u);
  EXPECT_EQ(a.counted_launches.at("g"), 2u);
  json bad = doc;
  bad["launch_sampling"]["counted_launches"]["k"] = -1;
  EXPECT_THROW(attribute::counts_from_json(bad, "c.json"), UsageError);
}

}  // namespace
