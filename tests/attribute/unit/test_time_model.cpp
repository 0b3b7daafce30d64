// The time model of `divbench attribute` (attribute/time_model.hpp), unit by unit, on hand-made counts:
// every expected number below is worked out by hand from the formulas in the header.
#include <gtest/gtest.h>

#include "divbench/attribute/attribution.hpp"
#include "divbench/attribute/time_model.hpp"
#include "attribute_constants.hpp"
#include "fixture_util.hpp"

namespace {

using namespace divbench;
using namespace divbench::sass::test;

// diamond: 0x20 @P0 BRA 0x50 | 0x30 IADD3, 0x40 BRA 0x60 | 0x50 IADD3 | 0x60 BSYNC | 0x70; 10 warps, 12
// lanes taken (20 fall through), every execution divergent.
attribute::FunctionCounts diamond_counts() {
  attribute::FunctionCounts c;
  c.name = "diamond";
  const std::uint64_t w = 10;
  c.pcs[0x00] = {w, 320, 320, 0, 0};
  c.pcs[0x10] = {w, 320, 320, 0, 0};
  c.pcs[0x20] = {w, 320, 320, w, 0};
  c.pcs[0x30] = {w, 200, 200, 0, 0};
  c.pcs[0x40] = {w, 200, 200, 0, w};
  c.pcs[0x50] = {w, 120, 120, 0, 0};
  c.pcs[0x60] = {2 * w, 320, 320, 0, 0};
  c.pcs[0x70] = {w, 320, 320, 0, 0};
  return c;
}

struct Diamond {
  std::unique_ptr<AnalyzedFixture> l = load_analyzed("diamond");
  attribute::FunctionBranches t = attribute::branch_table(l->a, 90, {});
  std::vector<model::IssueCost> costs = model::issue_costs(l->f, attribute_constants());
  attribute::FunctionCounts counts = diamond_counts();
  attribute::KernelAttribution k = attribute::attribute_kernel(t, counts, l->f, costs);
  std::vector<int> no_loops = std::vector<int>(l->f.instructions.size(), -1);
};

TEST(TimeModel, StallReasonsAreIssueContentionOrWait) {
  using attribute::PassKind;
  EXPECT_EQ(attribute::pass_kind("smsp__pcsamp_warps_issue_stalled_selected"), PassKind::Issue);
  for (const char* r : {"not_selected", "dispatch_stall", "math_pipe_throttle", "mio_throttle", "lg_throttle", "tex_throttle"})
    EXPECT_EQ(attribute::pass_kind(std::string("smsp__pcsamp_warps_issue_stalled_") + r), PassKind::Contention) << r;
  for (const char* r : {"long_scoreboard", "short_scoreboard", "wait", "barrier", "membar", "no_instructions", "branch_resolving", "misc"})
    EXPECT_EQ(attribute::pass_kind(std::string("smsp__pcsamp_warps_issue_stalled_") + r), PassKind::Wait) << r;
  // The twins count a subset of the same samples again; the counters are no reason.
  EXPECT_EQ(attribute::pass_kind("smsp__pcsamp_warps_issue_stalled_selected_not_issued"), PassKind::Ignored);
  EXPECT_EQ(attribute::pass_kind("smsp__pcsamp_sample_count"), PassKind::Ignored);
}

// The region's ideal passes at the branch's 32 lanes: 0x30 and 0x40 200/32 = 6.25 of 10, 0x50 120/32 = 3.75.
TEST(TimeModel, RegionScalesToIdealPasses) {
  Diamond d;
  std::vector<double> scale(d.l->f.instructions.size(), 1.0), ratio(scale.size(), 1.0);
  attribute::scale_region(d.k.branches.at(0), d.counts, d.l->f, scale, ratio, d.costs);
  std::vector<double> want(scale.size(), 1.0);  // the fixture's code goes on past 0x70, never run
  want[3] = want[4] = 0.625;
  want[5] = 0.375;
  EXPECT_EQ(scale, want);
  EXPECT_EQ(ratio, std::vector<double>(scale.size(), 1.0));  // no memory levels: a pass costs the same
}

// No samples, one warp per SM, one SM: each pass costs the issue model's cycles (1; 6 at the two BRAs,
// taken branch B = 5). Residency 90 issue + 2 x 10 x 5 wait = 190 > issue bound 90 / 4. Removing the
// divergence removes 13.75 passes (3.75 + 3.75 + 6.25) and 0.375 x 50 of the BRA's wait: 32.5 of 190.
TEST(TimeModel, LatencyBoundFromTheIssueModel) {
  Diamond d;
  ASSERT_DOUBLE_EQ(d.costs[2].cycles, 6);
  ASSERT_DOUBLE_EQ(d.costs[4].cycles, 6);
  const auto t = attribute::predict_time(d.k, d.l->f, d.costs, nullptr, d.no_loops, {1, 1, 4}, 0);
  EXPECT_FALSE(t.from_samples);
  EXPECT_DOUBLE_EQ(t.sm_cycles, 190);
  EXPECT_DOUBLE_EQ(t.issue_bound_cycles, 22.5);
  EXPECT_NEAR(t.kernel.share, 32.5 / 190, 1e-12);
  ASSERT_TRUE(t.branches.at(0).has_value());
  EXPECT_NEAR(t.branches[0]->share, 32.5 / 190, 1e-12);
  EXPECT_FALSE(t.kernel.seconds.has_value());  // no measured time without samples
}

// 64 resident warps: the residency (190 / 64) is below the issue bound 22.5; the saving is the removed
// passes over the four schedulers: 13.75 / 90 of the kernel.
TEST(TimeModel, IssueBoundAtHighOccupancy) {
  Diamond d;
  const auto t = attribute::predict_time(d.k, d.l->f, d.costs, nullptr, d.no_loops, {1, 64, 4}, 0);
  EXPECT_DOUBLE_EQ(t.sm_cycles, 22.5);
  EXPECT_NEAR(t.kernel.share, 13.75 / 90, 1e-12);
}

// Samples: 10 at every pc, each split 4 selected, 4 not selected, 2 long scoreboard (the twin ignored),
// period 1, one warp per SM: issue 32, contention 32, wait 16 warp-cycles, 80 SM cycles (= the samples).
// Removing the divergence: issue 4 x 1.375 and wait 2 x 1.375 of the region's passes, and contention in
// proportion to the issue demand left, (90 - 13.75) / 90.
TEST(TimeModel, SampledPassesSplitByReason) {
  Diamond d;
  std::map<std::uint64_t, std::uint64_t> samples;
  std::map<std::uint64_t, std::map<std::size_t, std::uint64_t>> stalls;
  for (std::uint64_t pc = 0; pc <= 0x70; pc += 0x10) {
    samples[pc] = 10;
    stalls[pc] = {{0, 4}, {1, 4}, {2, 2}, {3, 100}};
  }
  const std::vector<std::string> reasons{"smsp__pcsamp_warps_issue_stalled_selected", "smsp__pcsamp_warps_issue_stalled_not_selected",
                                         "smsp__pcsamp_warps_issue_stalled_long_scoreboard",
                                         "smsp__pcsamp_warps_issue_stalled_selected_not_issued"};
  attribute::SampledTime st{&samples, &stalls, &reasons, 1};
  const auto t = attribute::predict_time(d.k, d.l->f, d.costs, &st, d.no_loops, {1, 1, 4}, 2e9);
  EXPECT_TRUE(t.from_samples);
  EXPECT_DOUBLE_EQ(t.issue, 32);
  EXPECT_DOUBLE_EQ(t.contention, 32);
  EXPECT_DOUBLE_EQ(t.wait, 16);
  EXPECT_DOUBLE_EQ(t.sm_cycles, 80);
  ASSERT_TRUE(t.measured_sm_cycles.has_value());
  EXPECT_DOUBLE_EQ(*t.measured_sm_cycles, 80);
  const double after = 80 - 4 * 1.375 - 2 * 1.375 - 32 * (13.75 / 90);
  EXPECT_NEAR(t.kernel.share, 1 - after / 80, 1e-12);
  ASSERT_TRUE(t.kernel.seconds.has_value());
  EXPECT_NEAR(*t.kernel.seconds, t.kernel.share * 80 / 2e9, 1e-20);
}

// A uniform kernel (no divergent execution) saves nothing and every share stays within [0, 1].
TEST(TimeModel, NothingToSaveWithoutDivergence) {
  Diamond d;
  d.counts.pcs[0x20] = {10, 320, 320, 0, 10};
  d.counts.pcs[0x30] = {10, 320, 320, 0, 0};
  d.counts.pcs[0x40] = {10, 320, 320, 0, 10};
  d.counts.pcs.erase(0x50);
  d.counts.pcs[0x60] = {10, 320, 320, 0, 0};
  d.k = attribute::attribute_kernel(d.t, d.counts, d.l->f, d.costs);
  const auto t = attribute::predict_time(d.k, d.l->f, d.costs, nullptr, d.no_loops, {1, 1, 4}, 0);
  EXPECT_DOUBLE_EQ(t.kernel.share, 0);
  EXPECT_FALSE(t.branches.at(0).has_value());
}

// Idle lanes of a warp-uniform loop: a guarded instruction's passes at its predicated-on threads (160 of
// 320: half); its unguarded, uniform-guarded and control instructions, and a loop a divergent region
// holds, are left alone.
TEST(TimeModel, PredicatedLoopBodies) {
  sass::Function f;
  f.name = "k";
  const auto ins = [&](std::uint64_t off, const char* base, const char* guard) {
    sass::Instruction i;
    i.offset = off;
    i.base = base;
    i.opcode = base;
    i.guard = guard;
    f.instructions.push_back(i);
  };
  ins(0x00, "FFMA", "");
  ins(0x10, "FFMA", "P0");
  ins(0x20, "FFMA", "UP0");
  ins(0x30, "BRA", "P1");
  ins(0x40, "EXIT", "");
  attribute::FunctionCounts c;
  c.name = "k";
  for (std::uint64_t pc = 0; pc <= 0x30; pc += 0x10) c.pcs[pc] = {10, 320, pc == 0x10 ? 160u : 320u, 0, 0};
  c.pcs[0x30] = {10, 320, 160, 0, 10};
  c.pcs[0x40] = {1, 32, 32, 0, 0};
  attribute::FunctionBranches table;
  attribute::KernelAttribution k;
  k.table = &table;
  k.counts = &c;
  std::vector<double> scale(5, 1.0);
  EXPECT_EQ(attribute::scale_predicated_loops(k, f, {0, 0, 0, 0, -1}, scale), 1u);
  EXPECT_EQ(scale, (std::vector<double>{1, 0.5, 1, 1, 1}));
  // The same loop inside a divergent branch's region: its lanes are that branch's to price.
  attribute::StaticBranch b;
  b.index = 3;
  b.region = {0, 1, 2, 3};
  attribute::BranchCost bc;
  bc.branch = &b;
  bc.divergent = 1;
  k.branches.push_back(bc);
  std::vector<double> untouched(5, 1.0);
  EXPECT_EQ(attribute::scale_predicated_loops(k, f, {0, 0, 0, 0, -1}, untouched), 0u);
  EXPECT_EQ(untouched, std::vector<double>(5, 1.0));
}

}  // namespace
