// Hand-made nvdisasm -json fixtures: CFG edges, post-dominators, barrier regions and placement.
#include <gtest/gtest.h>

#include <array>

#include "fixture_util.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/model/self_check.hpp"
#include "divbench/sass/control_word.hpp"

using namespace divbench::sass;
using namespace divbench::model;  // the self-check predicates
using namespace divbench::sass::test;
using Edges = std::map<std::uint64_t, std::set<std::uint64_t>>;

namespace {

std::unique_ptr<AnalyzedFixture> load(const std::string& name) { return load_analyzed(name); }

const BranchRecord* branch(const FunctionAnalysis& a, std::uint64_t off, int barrier = -2) {
  for (const auto& r : a.placement.branches)
    if (r.offset == off && (barrier == -2 || r.barrier == barrier)) return &r;
  return nullptr;
}

}  // namespace

TEST(SassFixtures, Diamond) {
  auto l = load("diamond");
  EXPECT_EQ(edges(l->a.cfg), (Edges{{0x0, {0x30, 0x50}}, {0x30, {0x60}}, {0x50, {0x60}}, {0x60, {}}}));
  const auto* b = branch(l->a, 0x20);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->ipdom, 0x60u);
  EXPECT_EQ(b->barrier, 0);
  EXPECT_EQ(b->bssy, 0x10u);
  EXPECT_EQ(b->bsync, (std::vector<std::uint64_t>{0x60}));
  EXPECT_EQ(b->placement, "at");
  EXPECT_EQ(l->a.census.nesting_depth, 1);
  EXPECT_EQ(l->a.placement.counts.at, 1);
  EXPECT_DOUBLE_EQ(l->a.placement.counts.ipdom_exact_rate(), 1.0);
  EXPECT_TRUE(has_guarded_divergent_branch(l->a));
  EXPECT_FALSE(is_branch_free(l->a));
}

TEST(SassFixtures, IfWithoutElseAndPaddingDropped) {
  auto l = load("if_without_else");
  EXPECT_EQ(edges(l->a.cfg), (Edges{{0x0, {0x30, 0x40}}, {0x30, {0x40}}, {0x40, {}}}));
  EXPECT_EQ(branch(l->a, 0x20)->placement, "at");
  EXPECT_EQ(l->a.cfg.find_block(0x60), -1);  // padding self-loop is unreachable
}

TEST(SassFixtures, DeferredReconvergenceIsAfter) {
  auto l = load("deferred");
  EXPECT_EQ(edges(l->a.cfg), (Edges{{0x0, {0x40, 0x50}}, {0x40, {0x50}}, {0x50, {0x60, 0x70}}, {0x60, {0x70}}, {0x70, {}}}));
  const auto* b = branch(l->a, 0x30);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->ipdom, 0x50u);
  EXPECT_EQ(b->placement, "after");
  const auto* u = branch(l->a, 0x50);
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->placement, "unguarded");
  EXPECT_EQ(u->ipdom, 0x70u);
  EXPECT_EQ(l->a.placement.counts.after, 1);
  EXPECT_EQ(l->a.placement.counts.unguarded, 1);
  EXPECT_DOUBLE_EQ(l->a.placement.counts.ipdom_exact_rate(), 0.0);
}

TEST(SassFixtures, NestedRegionsDepthTwo) {
  auto l = load("nested");
  EXPECT_EQ(edges(l->a.cfg), (Edges{{0x0, {0x20, 0xa0}}, {0x20, {0x40, 0x60}}, {0x40, {0x70}}, {0x60, {0x70}},
                                    {0x70, {0xa0}}, {0xa0, {}}}));
  EXPECT_EQ(l->a.census.nesting_depth, 2);
  EXPECT_EQ(branch(l->a, 0x10, 0)->placement, "at");
  EXPECT_EQ(branch(l->a, 0x10, 0)->ipdom, 0xa0u);
  EXPECT_EQ(branch(l->a, 0x30, 1)->placement, "at");
  EXPECT_EQ(branch(l->a, 0x30, 1)->ipdom, 0x70u);
  EXPECT_EQ(l->a.regions.size(), 2u);
}

// Back-to-back BSSYs (`BSSY B1; BSSY B0; @P0 BRA`). The inner region (B0) reconverges the first
// branch fully (no path leaves it before its BSYNC), so the outer (B1) guards the second branch,
// after B0 closes. The old rule (each BSSY guards the first branch after it) gave the first branch
// two records, B1's one a false deferred (`after`), and left the second branch unguarded.
TEST(SassFixtures, BackToBackBssyEachGuardsItsOwnBranch) {
  auto l = load("back_to_back");
  EXPECT_EQ(edges(l->a.cfg), (Edges{{0x0, {0x30, 0x40}}, {0x30, {0x40}}, {0x40, {0x70, 0xa0}}, {0x70, {0xa0}},
                                    {0xa0, {}}}));
  EXPECT_EQ(l->a.census.nesting_depth, 2);
  ASSERT_EQ(l->a.regions.size(), 2u);
  EXPECT_TRUE(reconverges_fully(l->f, l->a.cfg, l->a.regions[1], 2));  // B0, branch at 0x20
  // {branch, guarding barrier, its BSSY, IPDom}: both at their IPDom.
  for (auto [off, bar, bssy, ipdom] : {std::array<std::uint64_t, 4>{0x20, 0, 0x10, 0x40}, {0x60, 1, 0x0, 0xa0}}) {
    const auto* b = branch(l->a, off);
    ASSERT_NE(b, nullptr) << off;
    EXPECT_EQ(b->barrier, static_cast<int>(bar)) << off;
    EXPECT_EQ(b->bssy, bssy) << off;
    EXPECT_EQ(b->ipdom, ipdom) << off;
    EXPECT_EQ(b->placement, "at") << off;
  }
  EXPECT_EQ(branch(l->a, 0x20, 1), nullptr);  // B1 does not guard the first branch
  EXPECT_EQ(l->a.placement.branches.size(), 2u);
  EXPECT_EQ(l->a.placement.counts.at, 2);
  EXPECT_EQ(l->a.placement.counts.after, 0);
  EXPECT_EQ(l->a.placement.counts.unguarded, 0);
  EXPECT_EQ(l->a.placement.counts.bssy_guarding_nothing, 0);
}

// The sc_or_chain shape (sm_75..sm_90): the inner region (B0) holds the short-circuit evaluation;
// threads whose condition turns out false BREAK out of it straight to the outer BSYNC, so B0's BSYNC
// reconverges only the threads that go on to the then-part: early (`before`) for the first branch,
// whose IPDom is B1's BSYNC. B0 does not reconverge that branch fully, so B1 guards it too, at its
// IPDom (two records, as before this fix). The branch after the BREAK and the then-part's branch
// are no BSSY's first branch: unguarded.
TEST(SassFixtures, BackToBackBssyWithBreakOut) {
  auto l = load("back_to_back_break");
  EXPECT_EQ(edges(l->a.cfg), (Edges{{0x0, {0x30, 0x60}}, {0x30, {0x60, 0xc0}}, {0x60, {0xa0, 0xc0}},
                                    {0xa0, {0xc0}}, {0xc0, {}}}));
  ASSERT_EQ(l->a.regions.size(), 2u);
  EXPECT_FALSE(reconverges_fully(l->f, l->a.cfg, l->a.regions[1], 2));  // B0, branch at 0x20
  const auto* partial = branch(l->a, 0x20, 0);
  ASSERT_NE(partial, nullptr);
  EXPECT_EQ(partial->ipdom, 0xc0u);
  EXPECT_EQ(partial->placement, "before");
  const auto* full = branch(l->a, 0x20, 1);
  ASSERT_NE(full, nullptr);
  EXPECT_EQ(full->placement, "at");
  EXPECT_EQ(branch(l->a, 0x50)->placement, "unguarded");
  EXPECT_EQ(branch(l->a, 0x90)->placement, "unguarded");
  EXPECT_EQ(l->a.placement.counts.before, 1);
  EXPECT_EQ(l->a.placement.counts.at, 1);
  EXPECT_EQ(l->a.placement.counts.unguarded, 2);
  // Branches and guard records are two units (the console once summed them): three
  // branches, one guarded (by both regions) and two unguarded; two guard records for that one branch.
  const auto& c = l->a.placement.counts;
  EXPECT_EQ(c.divergent_branches, 3);
  EXPECT_EQ(c.guarded_branches, 1);
  EXPECT_EQ(c.divergent_branches, c.guarded_branches + c.unguarded);
  EXPECT_EQ(c.guard_records(), 2);
  EXPECT_DOUBLE_EQ(c.ipdom_exact_rate(), 0.5);  // over guard records
  const divbench::json j = to_json(c);
  EXPECT_EQ(j["guarded_branches"], 1);
  EXPECT_EQ(j["guard_records"], 2);
}

TEST(SassFixtures, LoopWithBreak) {
  auto l = load("loop_break");
  EXPECT_EQ(edges(l->a.cfg),
            (Edges{{0x0, {0x10}}, {0x10, {0x50, 0x80}}, {0x50, {0x10, 0x70}}, {0x70, {0x80}}, {0x80, {}}}));
  const auto* b = branch(l->a, 0x40);  // BREAK is straight-line; the BRA after it is the branch
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->barrier, 0);
  EXPECT_EQ(b->ipdom, 0x80u);
  EXPECT_EQ(b->placement, "at");
  EXPECT_EQ(branch(l->a, 0x60)->placement, "unguarded");
  EXPECT_EQ(l->a.census.total("BREAK"), 1);
}

TEST(SassFixtures, SwitchViaBrxTargetsFromTextListing) {
  auto l = load("switch");
  EXPECT_EQ(edges(l->a.cfg), (Edges{{0x0, {0x20, 0x40, 0x60}}, {0x20, {0x60}}, {0x40, {0x60}}, {0x60, {}}}));
  const auto* b = branch(l->a, 0x10);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->placement, "at");
  EXPECT_EQ(b->ipdom, 0x60u);
  // Encodings come from the -hex listing: the control bits of the BSYNC.
  const Instruction* bsync = l->f.at(0x60);
  ASSERT_NE(bsync, nullptr);
  auto w = decode_control(*bsync);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->opcode_bits, 0x941);
  EXPECT_EQ(w->stall, 5);
  EXPECT_EQ(w->yield, 1);
  EXPECT_EQ(w->write_barrier, 7);
  EXPECT_EQ(w->read_barrier, 7);
  EXPECT_EQ(w->wait_mask, 3);
  EXPECT_EQ(w->reuse, 0);
}

TEST(SassFixtures, IrreducibleLoop) {
  auto l = load("irreducible");
  EXPECT_EQ(edges(l->a.cfg), (Edges{{0x0, {0x20, 0x50}}, {0x20, {0x40, 0x50}}, {0x40, {0x70}}, {0x50, {0x20, 0x70}},
                                    {0x70, {}}}));
  for (std::uint64_t off : {0x10, 0x30, 0x60}) {
    const auto* b = branch(l->a, off);
    ASSERT_NE(b, nullptr) << off;
    EXPECT_EQ(b->ipdom, 0x70u) << off;
    EXPECT_EQ(b->placement, "unguarded");
  }
  EXPECT_TRUE(l->a.pd.virtual_exit_edges.empty());
}

TEST(SassFixtures, InfiniteLoopConnectedToVirtualExit) {
  auto l = load("infinite_loop");
  EXPECT_EQ(edges(l->a.cfg), (Edges{{0x0, {0x10, 0x30}}, {0x10, {}}, {0x30, {0x30}}}));
  ASSERT_EQ(l->a.pd.virtual_exit_edges.size(), 1u);
  EXPECT_EQ(l->a.cfg.blocks[l->a.pd.virtual_exit_edges[0]].start, 0x30u);
  const auto* b = branch(l->a, 0x0);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->ipdom.has_value());  // paths never meet: the virtual exit
}

TEST(SassFixtures, PredicatedExitMakesEarlyReconvergence) {
  auto l = load("predicated_exit");
  EXPECT_EQ(edges(l->a.cfg), (Edges{{0x0, {0x30, 0x40}}, {0x30, {0x40}}, {0x40, {}}}));
  const auto* b = branch(l->a, 0x20);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->ipdom.has_value());
  EXPECT_EQ(b->placement, "before");
  EXPECT_EQ(l->a.census.total("EXIT"), 2);
}

TEST(SassFixtures, UniformBranchesAreNotDivergent) {
  auto l = load("uniform");
  EXPECT_EQ(edges(l->a.cfg), (Edges{{0x0, {0x20, 0x40}}, {0x20, {0x30, 0x40}}, {0x30, {0x40}}, {0x40, {0x50, 0x60}},
                                    {0x50, {0x60}}, {0x60, {}}}));
  EXPECT_EQ(l->a.placement.counts.divergent_branches, 1);  // only `@P0 BRA P1, 0x40`
  EXPECT_EQ(branch(l->a, 0x20)->placement, "unguarded");
  EXPECT_EQ(l->a.census.count("BRA", "U"), 1);
  EXPECT_FALSE(is_branch_free(l->a));
}

TEST(SassFixtures, JsonDocumentHasSchemaAndBlocks) {
  auto l = load("diamond");
  Cubin c;
  c.path = c.source = "diamond";
  c.sm = 90;
  c.functions.push_back(l->f);
  auto ca = analyze(c);
  auto doc = to_document({ca}, "", "test");
  EXPECT_EQ(doc["schema"], "divbench.sass/2");
  const auto& f = doc["cubins"][0]["functions"][0];
  EXPECT_EQ(f["blocks"].size(), 4u);
  EXPECT_EQ(f["blocks"][0]["start"], 0);
  EXPECT_EQ(f["branches"][0]["placement"], "at");
  EXPECT_EQ(doc["placement"]["at"], 1);
  EXPECT_EQ(doc["census"]["bssy"], 1);
}

TEST(SassParse, OperandsAndPredicates) {
  EXPECT_EQ(split_operands("R0, desc[UR4][R2.64], c[0x0][0x10]"),
            (std::vector<std::string>{"R0", "desc[UR4][R2.64]", "c[0x0][0x10]"}));
  std::string base;
  std::vector<std::string> mods;
  split_opcode("BSSY.RECONVERGENT", base, mods);
  EXPECT_EQ(base, "BSSY");
  EXPECT_EQ(mods, (std::vector<std::string>{"RECONVERGENT"}));
  EXPECT_TRUE(is_uniform_predicate("UP3"));
  EXPECT_TRUE(is_uniform_predicate("!PT"));
  EXPECT_FALSE(is_uniform_predicate("P0"));
  EXPECT_EQ(parse_integer("-0x260"), -0x260);
  EXPECT_FALSE(parse_integer("R4").has_value());
}

TEST(SassParse, MalformedJsonIsAUsageError) {
  EXPECT_THROW(parse_nvdisasm_json_text("{"), divbench::UsageError);
  EXPECT_THROW(parse_nvdisasm_json_text("[1,2,3]"), divbench::UsageError);
  EXPECT_THROW(parse_nvdisasm_json_text(R"([{}, [{"start": 0}]])"), divbench::UsageError);
}

// Integer fields that are no integer within +-2^24 (a fraction, 9.3e111: found by fuzz_nvdisasm_json,
// where converting to int was undefined behaviour) are a malformed document; a plain one still parses.
TEST(SassParse, IntFieldsBeyondRangeOrFractionalAreAUsageError) {
  ListingMeta meta;
  parse_nvdisasm_json_text(R"([{"SM": {"version": {"major": 9, "minor": 0}}}, []])", &meta);
  EXPECT_EQ(meta.sm, 90);
  EXPECT_THROW(parse_nvdisasm_json_text(R"([{"SM": {"version": {"major": 9.3e111, "minor": 0}}}, []])"),
               divbench::UsageError);
  EXPECT_THROW(parse_nvdisasm_json_text(R"([{"SM": {"version": {"major": 9.5, "minor": 0}}}, []])"),
               divbench::UsageError);
  EXPECT_THROW(parse_nvdisasm_json_text(R"([{"SM": {"version": {"major": 99999999, "minor": 0}}}, []])"),
               divbench::UsageError);
  // A function's start and length: unsigned integers; a float such as 3e101 (found by fuzz_nvdisasm_json)
  // or a negative one is refused, 0 and 2^64-1 are read.
  const auto entry = [](const std::string& start) {
    return R"([{}, [{"function-name": "k", "start": )" + start + R"(, "length": 0, "sass-instructions": []}]])";
  };
  EXPECT_EQ(parse_nvdisasm_json_text(entry("0")).size(), 1u);
  EXPECT_EQ(parse_nvdisasm_json_text(entry("18446744073709551615")).at(0).start, 18446744073709551615ull);
  EXPECT_THROW(parse_nvdisasm_json_text(entry("3e101")), divbench::UsageError);
  EXPECT_THROW(parse_nvdisasm_json_text(entry("-16")), divbench::UsageError);
  EXPECT_THROW(parse_nvdisasm_json_text(entry("16.5")), divbench::UsageError);
}

TEST(SassSelfCheckPredicates, OnFixtures) {
  auto diamond = load("diamond");
  auto loop = load("loop_break");
  auto uniform = load("uniform");
  auto deferred = load("deferred");
  EXPECT_EQ(guarded_divergent_branches(diamond->a), 1);
  EXPECT_EQ(guarded_divergent_branches_in_loops(diamond->a), 0);  // straight-line if/else
  EXPECT_EQ(guarded_divergent_branches_in_loops(loop->a), 1);     // the break test inside the loop
  EXPECT_FALSE(has_guarded_divergent_branch(uniform->a));          // its one divergent branch is unguarded
  EXPECT_TRUE(branches_no_more_than(diamond->a, deferred->a));
  EXPECT_FALSE(branches_no_more_than(deferred->a, diamond->a));    // 2 divergent branches vs 1
}

// Maxwell/Pascal text listing (hand-made in nvdisasm 12.x style): 64-bit instructions, one control
// word per bundle of three, SYNC jumping to the address its SSY pushed.
TEST(SassFixtures, PascalTextListingSsySync) {
  auto fns = parse_nvdisasm_text(read_text(fixture_path("pascal.txt")), 61);
  ASSERT_EQ(fns.size(), 1u);
  const Function& f = fns[0];
  EXPECT_EQ(f.name, "_Z6pascalPi");
  EXPECT_EQ(f.instruction_bytes, 8);
  ASSERT_NE(f.at(0x8), nullptr);
  ASSERT_TRUE(f.at(0x8)->encoding.has_value());
  EXPECT_EQ(f.at(0x8)->encoding->bits, 64);
  EXPECT_EQ(f.at(0x8)->encoding->lo, 0x4c98078000870001ull);
  EXPECT_EQ(f.at(0x8)->encoding->control, 0x001fc400fe2007f6ull);
  EXPECT_EQ(f.at(0x48)->encoding->control, 0x001fc400fe2007f1ull);
  EXPECT_EQ(f.at(0x18)->targets, (std::vector<std::uint64_t>{0x88}));  // SSY pushes .L_x_0
  EXPECT_EQ(f.at(0x68)->targets, (std::vector<std::uint64_t>{0x88}));  // SYNC resolved to it
  const auto a = analyze(f);
  EXPECT_EQ(edges(a.cfg), (Edges{{0x8, {0x48, 0x70}}, {0x48, {0x88}}, {0x70, {0x88}}, {0x88, {}}}));
  EXPECT_EQ(a.census.total("SSY"), 1);
  EXPECT_EQ(a.census.total("SYNC"), 2);
  EXPECT_EQ(a.placement.counts.divergent_branches, 1);
  EXPECT_FALSE(decode_control(*f.at(0x8)).has_value());  // Volta+ layout only
}
