// Kernel facts on hand-made listings: natural loops and nesting, irreducible cycles, the clock
// bracketing check (a listing that passes, and two where work escapes the bracket), probe arm
// layout (and merged arms), the loop JSON round trip, and the self-check rules failing on broken facts.
#include <gtest/gtest.h>

#include "divbench/core/errors.hpp"
#include "divbench/model/timed_region.hpp"
#include "divbench/sass/bracket.hpp"
#include "divbench/model/arm_side.hpp"
#include "divbench/model/kernel_facts.hpp"
#include "fixture_util.hpp"
#include "kernel_checks.hpp"

using namespace divbench;
using namespace divbench::sass;
using namespace divbench::model;
using namespace divbench::sass::test;

namespace {

// A fixture, its analysis and its loops.
struct Loaded {
  std::unique_ptr<AnalyzedFixture> fx;
  const Function& f;
  const FunctionAnalysis& a;
  Loops loops;
  explicit Loaded(std::unique_ptr<AnalyzedFixture> p) : fx(std::move(p)), f(fx->f), a(fx->a), loops(find_loops(a.cfg)) {}
};
std::unique_ptr<Loaded> load(const std::string& name) { return std::make_unique<Loaded>(load_analyzed(name)); }

Bracket bracket_of(const Loaded& l) { return check_bracket(l.a, timed_region(l.a, l.loops)); }

}  // namespace

TEST(KernelFacts, NestedLoopsDepthParentAndPaths) {
  auto l = load("nested_loops");
  ASSERT_EQ(l->loops.loops.size(), 2u);
  const Loop& outer = l->loops.loops[0];
  const Loop& inner = l->loops.loops[1];
  EXPECT_EQ(l->a.cfg.blocks[outer.header].start, 0x10u);
  EXPECT_EQ(l->a.cfg.blocks[inner.header].start, 0x20u);
  EXPECT_EQ(inner.parent, 0);
  EXPECT_EQ(inner.depth, 2);
  EXPECT_EQ(outer.depth, 1);
  EXPECT_EQ(outer.children, std::vector<int>{1});
  const LoopFacts in = loop_facts(l->a, l->loops, 1);
  EXPECT_TRUE(in.single_path);
  EXPECT_EQ(in.taken_branches, 1);
  EXPECT_EQ(in.instruction_count(), 3);
  EXPECT_TRUE(in.instructions.back().jump);
  EXPECT_EQ(in.instructions.back().base, "BRA");
  EXPECT_FALSE(in.stall_sum());  // no encodings in a -json fixture: no stall fields
  const LoopFacts out = loop_facts(l->a, l->loops, 0);
  EXPECT_FALSE(out.single_path);  // the inner loop's latch has two successors inside the outer loop
  EXPECT_EQ(out.instruction_count(), 6);
  EXPECT_TRUE(l->loops.irreducible_blocks.empty());
}

TEST(KernelFacts, IrreducibleCycleIsNotANaturalLoop) {
  auto l = load("irreducible");
  EXPECT_TRUE(l->loops.loops.empty());
  std::vector<std::uint64_t> starts;
  for (int b : l->loops.irreducible_blocks) starts.push_back(l->a.cfg.blocks[b].start);
  EXPECT_EQ(starts, (std::vector<std::uint64_t>{0x20, 0x50}));
}

TEST(KernelFacts, LoopJsonRoundTrip) {
  auto l = load("nested_loops");
  LoopFacts in = loop_facts(l->a, l->loops, 1);
  ControlWord w;
  w.stall = 4;
  w.write_barrier = 2;
  w.wait_mask = 5;
  in.instructions[0].control = w;
  const LoopFacts back = loop_from_json(to_json(in));
  EXPECT_EQ(to_json(back), to_json(in));
  EXPECT_EQ(back.instructions[0].control->write_barrier, 2);
  EXPECT_THROW(loop_from_json(json{{"id", 0}}), UsageError);
}

TEST(KernelFacts, ClockReadsBracketTheRegion) {
  auto l = load("bracket_ok");
  const auto clocks = clock_reads(l->f, l->a.cfg);
  ASSERT_EQ(clocks.size(), 2u);
  const TimedRegion r = timed_region(l->a, l->loops);
  EXPECT_EQ(r.loops, std::vector<int>{0});
  EXPECT_EQ(r.branches, (std::vector<std::uint64_t>{0x20, 0x60}));  // the path branch and the loop's latch
  EXPECT_EQ(r.barriers, std::vector<std::uint64_t>{0x10});
  const Bracket b = check_bracket(l->a, r);
  EXPECT_EQ(b.start, 0x0u);
  EXPECT_EQ(b.stop, 0x80u);
  EXPECT_TRUE(b.bracketed());
}

TEST(KernelFacts, WorkAfterTheStopClockFailsTheBracket) {
  auto l = load("bracket_escape_loop");
  const Bracket b = bracket_of(*l);
  EXPECT_FALSE(b.bracketed());
  EXPECT_EQ(b.stop, 0x60u);
  EXPECT_EQ(b.not_before_stop, (std::vector<std::uint64_t>{0x70, 0x80, 0x90}));  // the loop
  EXPECT_TRUE(b.not_after_start.empty());
}

TEST(KernelFacts, StopClockInsideTheBarrierRegionFailsTheBracket) {
  auto l = load("bracket_escape_bsync");
  const Bracket b = bracket_of(*l);
  EXPECT_FALSE(b.bracketed());
  EXPECT_EQ(b.stop, 0x60u);
  // The BSSY, the branch (its taken side skips the read), the read itself and the rest of its side,
  // and the BSYNC lie outside the bracket.
  EXPECT_EQ(b.not_before_stop, (std::vector<std::uint64_t>{0x10, 0x20, 0x60, 0x70, 0x80}));
}

TEST(KernelFacts, FunctionFactsCarryTheBracket) {
  auto ok = load("bracket_ok");
  EXPECT_EQ(function_facts(ok->a)["timed_region"]["bracketed"], true);
  auto bad = load("bracket_escape_loop");
  const json f = function_facts(bad->a);
  EXPECT_EQ(f["timed_region"]["bracketed"], false);
  EXPECT_EQ(f["work_loop"], 0);
  auto none = load("nested_loops");  // loops but no clock read: not a timed function
  EXPECT_TRUE(function_facts(none->a)["timed_region"]["bracketed"].is_null());
}

// The facts of one fixture function as a one-cubin sm_90 document (what model::arm_side reads).
json one_function_facts(const FunctionAnalysis& a) {
  return json{{"schema", kKernelFactsSchema},
              {"cubins", json::array({json{{"sm", 90}, {"functions", json::array({function_facts(a)})}}})}};
}

TEST(KernelFacts, ArmSideNamesTheFallThroughArm) {
  auto l = load("arms");
  const json facts = one_function_facts(l->a);
  const ArmSideResult r = arm_side(facts, 90, ArmBranch{{"arms"}, "pc_armILi0E", "pc_armILi1E"});
  ASSERT_TRUE(r.side) << r.error;
  EXPECT_EQ(r.side->branch, 0x10u);
  EXPECT_EQ(r.side->fallthrough_arm, "then");
  EXPECT_EQ(arm_side(facts, 90, ArmBranch{{"arms"}, "pc_armILi1E", "pc_armILi0E"}).side->fallthrough_arm, "else");
  // The branch's sides: the calls each holds, the clock reads outside both.
  const json br = facts["cubins"][0]["functions"][0]["divergent_branches"][0];
  EXPECT_EQ(br["fallthrough"], 0x20);
  EXPECT_EQ(br["sides"]["fallthrough"]["calls"], json::array({"$k$pc_armILi0E"}));
  EXPECT_EQ(br["sides"]["taken"]["calls"], json::array({"$k$pc_armILi1E"}));
  EXPECT_EQ(function_facts(l->a)["timed_region"]["bracketed"], true);
}

TEST(KernelFacts, MergedArmsAreAnError) {
  auto l = load("arms_merged");
  const ArmSideResult r = arm_side(one_function_facts(l->a), 90, ArmBranch{{"arms"}, "pc_armILi0E", "pc_armILi1E"});
  EXPECT_FALSE(r.side);
  EXPECT_FALSE(r.error.empty());
}

TEST(KernelFacts, ReadersFindFunctions) {
  json facts{{"schema", kKernelFactsSchema},
             {"cubins", json::array({json{{"sm", 90},
                                          {"functions", json::array({json{{"name", "_Z11kway_kernelIN6bodies8FmaChainELi16EEv"}},
                                                                     json{{"name", "_Z11kway_kernelIN6bodies3SfuEEv"}}})}}})},
             };
  EXPECT_EQ(find_functions(facts, 90, {"kway_kernel", "8FmaChainE"}).size(), 1u);
  EXPECT_EQ(find_functions(facts, 90, {"kway_kernel"}).size(), 2u);
  EXPECT_TRUE(find_functions(facts, 80, {"kway_kernel"}).empty());
  EXPECT_FALSE(load_kernel_facts("/nonexistent-dir"));
}

// The self-check rules on facts built from fixtures: they pass on good facts and name each defect.
namespace {

json fixture_function(const std::string& fixture, const std::string& name) {
  auto l = load(fixture);
  json f = function_facts(l->a);
  f["name"] = name;
  return f;
}

json facts_of(const std::vector<json>& functions) {
  return json{{"schema", kKernelFactsSchema},
              {"cubins", json::array({json{{"sm", 90}, {"functions", functions}}})}};
}

bool mentions(const std::vector<std::string>& problems, const std::string& what) {
  for (const auto& p : problems)
    if (p.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(KernelChecks, RulesFailOnBrokenFacts) {
  // A bracketed kway-like kernel whose work loop is not guarded by a divergent branch in a loop,
  // a kway kernel whose work escapes the bracket, merged producer/consumer arms, a missing family.
  const json ok = fixture_function("bracket_ok", "kway_kernelI3SfuE");
  const json escaped = fixture_function("bracket_escape_loop", "kway_kernelI8FmaChainE");
  const json merged = fixture_function("arms_merged", "producer_consumer_kernel");
  const auto problems = test::check_timed_kernels(facts_of({ok, escaped, merged}), 90);
  EXPECT_TRUE(mentions(problems, "kway_kernelI8FmaChainE: the clock reads do not bracket")) << problems.size();
  EXPECT_FALSE(mentions(problems, "kway_kernelI3SfuE: the clock reads"));
  EXPECT_TRUE(mentions(problems, "kway_kernelI3SfuE: the SFU body's work loop has no MUFU"));
  EXPECT_TRUE(mentions(problems, "kway_kernelI3SfuE: no guarded divergent branch inside a loop"));
  EXPECT_TRUE(mentions(problems, "producer_consumer_kernel: arms: producer_consumer_kernel: 0 divergent branches separate"));
  EXPECT_TRUE(mentions(problems, "no function matching 'peer_wait_kernel'"));
  EXPECT_TRUE(mentions(problems, "no function matching 'lock_kernel'"));
}

TEST(KernelChecks, PredicationRules) {
  // Single path: one barrier region; a branchy kernel with the same count does not branch; a
  // "predicated" twin with more branches does.
  const json single = fixture_function("bracket_ok", "pred_select_kernelILi1ELi0EEEv");
  const json branchy_flat = fixture_function("bracket_ok", "pred_branchy_kernelILi0EEEv");
  json twin = fixture_function("bracket_ok", "pred_select_kernelILi4ELi0EEEv");
  twin["barrier_regions"] = 3;
  twin["divergent_branches"].push_back(twin["divergent_branches"][0]);
  const auto problems = test::check_timed_kernels(facts_of({single, branchy_flat, twin}), 90);
  EXPECT_TRUE(mentions(problems, "pred_branchy_kernelILi0EEEv: the branchy kernel has 1 barrier regions, the single path 1"));
  EXPECT_TRUE(mentions(problems, "pred_select_kernelILi4ELi0EEEv: a predicated twin has 3 barrier regions"));
  EXPECT_TRUE(mentions(problems, "pred_select_kernelILi4ELi0EEEv: a predicated twin has more divergent branches"));
  EXPECT_FALSE(mentions(problems, "pred_select_kernelILi1ELi0EEEv: a predicated twin"));
  // A twin at a placement whose single path is missing is named as such.
  const auto orphan = test::check_timed_kernels(facts_of({fixture_function("bracket_ok", "pred_select_kernelILi2ELi5EEEv")}), 90);
  EXPECT_TRUE(mentions(orphan, "no pred_select_kernel<1> (the single-path baseline)"));
}

// Pascal dual issue `{ A ; B }`: B's hex is on the line after it (after a label, even); it is B's
// encoding, not the next bundle's control word.
TEST(KernelFacts, PascalDualIssuePairKeepsItsEncodingAndBundleControl) {
  const std::string listing = R"(
	.section	.text.k,"ax",@progbits
.text.k:
                                                                          /* 0x001fc500fea007f1 */
        /*0008*/                   IADD32I R5, R5, 0x1 ;                 /* 0x1c00000000170505 */
        /*0010*/                   FFMA R4, R4, c[0x2][0x10], R3 ;       /* 0x4980018800470404 */
        /*0018*/         {         FFMA R4, R4, c[0x2][0x10], R3 ;       /* 0x4980018800470404 */
                                                                          /* 0x001fc000ffa007fd */
        /*0028*/              @!P1 BRA `(.L_x_1)         }
.L_x_2:
                                                                          /* 0xe2400ffffb09000f */
        /*0030*/                   SYNC ;                               /* 0xf0f800000007000f */
.L_x_1:
        /*0038*/                   EXIT ;                               /* 0xe30000000007000f */
)";
  const auto fns = parse_nvdisasm_text(listing, 61);
  ASSERT_EQ(fns.size(), 1u);
  const Function& f = fns[0];
  ASSERT_EQ(f.instructions.size(), 6u);
  EXPECT_EQ(f.instructions[2].opcode, "FFMA");
  const Instruction& bra = f.instructions[3];
  EXPECT_EQ(bra.offset, 0x28u);
  EXPECT_EQ(bra.opcode, "BRA");
  EXPECT_EQ(bra.guard, "P1");
  EXPECT_EQ(bra.targets, std::vector<std::uint64_t>{0x38});
  ASSERT_TRUE(bra.encoding);
  EXPECT_EQ(bra.encoding->lo, 0xe2400ffffb09000full);
  EXPECT_EQ(bra.encoding->control, 0x001fc000ffa007fdull);
  EXPECT_EQ(f.instructions[4].encoding->control, 0x001fc000ffa007fdull);  // SYNC: the same bundle
  const auto w = scheduling_control(f, 3);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->stall, 13);  // 0x7fd: stall 13, yield 1, no barriers
  EXPECT_EQ(w->write_barrier, 7);
  const auto ffma = scheduling_control(f, 2);  // slot 2 of the first bundle
  ASSERT_TRUE(ffma);
  EXPECT_EQ(ffma->stall, static_cast<int>((0x001fc500fea007f1ull >> 42) & 0xf));
}

TEST(KernelChecks, PlacementsMoveTheWorkLoop) {
  auto kway = [](int pad, std::uint64_t header) {
    json f = fixture_function("bracket_ok", "_ZN8divbench4kway11kway_kernelINS_6bodies8FmaChainELi" + std::to_string(pad) +
                                                "EEEvNS_10KwayParamsE");
    f["loops"][0]["header"] = header;
    return f;
  };
  EXPECT_EQ(placement_of("_ZN8divbench4kway11kway_kernelINS_6bodies3SfuELi12EEEvNS_10KwayParamsE"), 12);
  EXPECT_EQ(placement_of("_ZN8divbench4kway11kway_kernelINS_6bodies3SfuEEEvNS_10KwayParamsE"), -1);
  struct Found {
    std::vector<std::string> problems, notes;
  };
  auto check = [&](std::vector<json> fns) {
    Found f;
    for (const auto& p : test::check_timed_kernels(facts_of(fns), 90, &f.notes))
      if (p.find("placement") != std::string::npos) f.problems.push_back(p);
    return f;
  };
  const Found ok = check({kway(0, 0x220), kway(1, 0x230), kway(2, 0x240)});
  EXPECT_TRUE(ok.problems.empty());
  EXPECT_TRUE(ok.notes.empty());
  const Found stuck = check({kway(0, 0x220), kway(1, 0x230), kway(2, 0x230)});
  EXPECT_EQ(stuck.problems.size(), 1u);  // placement 2 does not move it later
  ASSERT_EQ(stuck.notes.size(), 1u);
  EXPECT_NE(stuck.notes[0].find("by 0 16 16 bytes"), std::string::npos) << stuck.notes[0];
  const Found wide = check({kway(0, 0x220), kway(1, 0x240)});
  EXPECT_TRUE(wide.problems.empty());
  EXPECT_EQ(wide.notes.size(), 1u);  // +32 for one Pad: later, but not a pure shift
}

TEST(KernelFacts, ClockReadForms) {
  auto ins = [](const std::string& base, std::vector<std::string> ops) {
    Instruction i;
    i.base = base;
    i.opcode = base;
    i.operands = std::move(ops);
    return i;
  };
  EXPECT_EQ(clock_kind(ins("CS2R", {"R4", "SR_CLOCKLO"})), "clock");
  EXPECT_TRUE(reads_clock_low(ins("CS2UR", {"UR6", "SR_CLOCKLO"})));  // sm_120/121
  EXPECT_TRUE(reads_clock_low(ins("S2UR", {"UR6", "SR_CLOCKLO"})));
  EXPECT_FALSE(reads_clock_low(ins("CS2R", {"R7", "SR_CLOCKHI"})));  // Pascal's HI half of a retry loop
  EXPECT_EQ(clock_kind(ins("CS2R", {"R2", "SR_GLOBALTIMERLO"})), "globaltimer");
  EXPECT_EQ(clock_kind(ins("S2R", {"R0", "SR_TID.X"})), "");
}

TEST(KernelFacts, ComputeCapabilityAsArchitectureNumber) {
  EXPECT_EQ(sm_of_cc("9.0"), 90);
  EXPECT_EQ(sm_of_cc("12.1"), 121);
  EXPECT_EQ(sm_of_cc("10.3"), 103);
  EXPECT_EQ(sm_of_cc("6.1"), 61);
  for (const char* bad : {"", "9", "9.", ".0", "9.0.1", "x.0", "9.x", "-9.0", "9.-1", " 9.0", "99999999.0"})
    EXPECT_EQ(sm_of_cc(bad), 0) << bad;
}
