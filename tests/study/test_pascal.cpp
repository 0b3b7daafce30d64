// Pascal (sm_6x) support used by the static study: nvdisasm 12.8 -json layout (8-byte slots with
// a control word every fourth slot, subroutines listed twice), SSY/SYNC regions placed by the same
// pass as BSSY/BSYNC, and the full-mask immediate WARPSYNC of sm_70..sm_89 counted as full.
#include <gtest/gtest.h>

#include "divbench/sass/analysis.hpp"
#include "divbench/sass/census.hpp"
#include "divbench/sass/parse.hpp"

using namespace divbench::sass;

namespace {

// A -json document in nvdisasm 12.8's layout for SM 6.1: `slots` is one function's
// "sass-instructions" array (empty opcode = control word).
std::string doc(const std::string& functions) {
  return R"([{"ELF":{"layout-id":4,"ei_osabi":51,"ei_abiversion":7},"SM":{"version":{"major":6,"minor":1}},)"
         R"("SchemaVersion":{"major":12,"minor":8,"revision":0},"Producer":"test"},[)" + functions + "]]";
}
const char* kCtl = R"({"opcode":""})";
std::string ins(const std::string& op, const std::string& operands = "", const std::string& pred = "") {
  std::string s = R"({"opcode":")" + op + "\"";
  if (!operands.empty()) s += R"(,"operands":")" + operands + "\"";
  if (!pred.empty()) s += R"(,"predicate":")" + pred + "\"";
  return s + "}";
}
std::string fn(const std::string& name, int start, const std::vector<std::string>& slots) {
  std::string s = R"({"function-name":")" + name + R"(","start":)" + std::to_string(start) +
                  R"(,"length":)" + std::to_string(8 * slots.size()) + R"(,"sass-instructions":[)";
  for (std::size_t i = 0; i < slots.size(); ++i) s += (i ? "," : "") + slots[i];
  return s + "]}";
}
// SYNC/BRK carry no operand in -json; the text listing's BRANCH_TARGETS supply the address
// (merge_text_listing). Here it is set directly, as that merge does.
void set_targets(Function& f, const std::string& base, std::uint64_t target) {
  for (auto& i : f.instructions)
    if (i.base == base) i.targets = {target};
}

// if/else diamond: SSY 0x50; @P0 BRA else; then: SYNC; else: SYNC; 0x50: reconvergence.
std::vector<std::string> diamond() {
  return {kCtl,          ins("SSY", "0x50"),  ins("ISETP.GT.AND", "P0,PT,R0,RZ,PT"), ins("BRA", "0x38", "@P0"),
          kCtl,          ins("IADD", "R1,R1,0x1"), ins("SYNC"),                        ins("IADD", "R1,R1,0x2"),
          kCtl,          ins("SYNC"),         ins("STG.E", "[R2],R1"),                  ins("EXIT"),
          kCtl,          ins("BRA", "0x68")};
}

}  // namespace

TEST(StudyPascal, JsonSlotsAreEightBytesAndControlWordsAreSkipped) {
  ListingMeta meta;
  auto fns = parse_nvdisasm_json_text(doc(fn("k", 0, diamond())), &meta);
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_EQ(meta.sm, 61);
  const Function& f = fns[0];
  EXPECT_EQ(f.instruction_bytes, 8);
  ASSERT_EQ(f.instructions.size(), 10u);  // 14 slots, 4 of them control words
  EXPECT_EQ(f.instructions[0].offset, 0x08u);
  EXPECT_EQ(f.instructions[0].base, "SSY");
  EXPECT_EQ(f.instructions[0].targets, (std::vector<std::uint64_t>{0x50}));
  EXPECT_EQ(f.at(0x38)->opcode, "IADD");
  EXPECT_EQ(f.at(0x20), nullptr);  // a control word is not an instruction
}

TEST(StudyPascal, SubroutineListedTwiceIsDroppedOnce) {
  // nvdisasm 12.8 lists "$k$callee" again as its own function, starting inside k's range.
  std::vector<std::string> callee = {kCtl, ins("IADD", "R1,R1,0x1"), ins("RET")};
  auto fns = parse_nvdisasm_json_text(doc(fn("k", 0, diamond()) + "," + fn("$k$callee", 0x60, callee) + "," +
                                          fn("$other$callee", 0x60, callee)));
  std::vector<std::string> names;
  for (const auto& f : fns) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"k", "$other$callee"}));  // only k's own copy is a duplicate
}

TEST(StudyPascal, SubroutineListedOnlyOnItsOwnIsFoldedIntoItsKernel) {
  // nvdisasm 12.x and 13.0 list "$k$callee" only as a function of its own, inside k's range but after k's
  // last listed instruction: its code becomes k's, as a subroutine (CUPTI counts its pcs under k), whether
  // the listing was asked for some functions (-fun) or for the whole module.
  std::string kfn = fn("k", 0, diamond());
  kfn.replace(kfn.find("\"length\":112"), 12, "\"length\":160");
  const std::vector<std::string> callee = {kCtl, ins("IADD", "R1,R1,0x1"), ins("RET")};
  const std::string listing = doc(kfn + "," + fn("$k$callee", 0x70, callee));
  for (const bool with_meta : {false, true}) {
    ListingMeta meta;
    auto fns = parse_nvdisasm_json_text(listing, with_meta ? &meta : nullptr);
    ASSERT_EQ(fns.size(), 1u);
    EXPECT_EQ(fns[0].name, "k");
    ASSERT_NE(fns[0].at(0x78), nullptr);
    EXPECT_EQ(fns[0].at(0x78)->opcode, "IADD");
    EXPECT_EQ(fns[0].at(0x80)->opcode, "RET");
    EXPECT_EQ(fns[0].subroutines.at("$k$callee"), 0x70u);
  }
}

TEST(StudyPascal, SlowPathAfterTheKernelsExitIsTheKernelsCodeWhateverItsName) {
  // The slow path of IEEE division that nvcc places after a kernel's last EXIT: nvdisasm 12.8 lists it as
  // "$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath", an entry after the kernel's, inside its range
  // (the kernel's .size covers it). Each kernel of a module keeps its own; a function of a section of its
  // own (-rdc: it starts at 0, where the kernel before it does) is not taken for a subroutine.
  const std::vector<std::string> slow = {kCtl, ins("IADD", "R1,R1,0x1"), ins("RET")};
  auto kernel = [](const std::string& name) {
    std::string k = fn(name, 0, diamond());
    k.replace(k.find("\"length\":112"), 12, "\"length\":136");
    return k;
  };
  const std::string listing = doc(kernel("a") + "," + fn("$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath", 0x70, slow) +
                                  "," + kernel("b") + "," + fn("$__internal_1_$__cuda_sm20_sqrt_rn_f32_slowpath", 0x70, slow) +
                                  "," + fn("rdc_function", 0, slow));
  auto fns = parse_nvdisasm_json_text(listing);
  std::vector<std::string> names;
  for (const auto& f : fns) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "rdc_function"}));
  ASSERT_EQ(fns.size(), 3u);
  ASSERT_NE(fns[0].at(0x78), nullptr);
  EXPECT_EQ(fns[0].at(0x80)->opcode, "RET");
  EXPECT_EQ(fns[0].subroutines.size(), 1u);
  EXPECT_EQ(fns[0].subroutines.at("$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath"), 0x70u);
  EXPECT_EQ(fns[1].subroutines.size(), 1u);
  EXPECT_EQ(fns[1].subroutines.at("$__internal_1_$__cuda_sm20_sqrt_rn_f32_slowpath"), 0x70u);
  EXPECT_TRUE(fns[2].subroutines.empty());
  EXPECT_EQ(fns[2].instructions.size(), 2u);
  // An entry that runs past the end of the one before it is not its code.
  const std::string past = doc(kernel("a") + "," + fn("$__internal_0_$x", 0x70, {kCtl, ins("IADD", "R1,R1,0x1"), ins("IADD", "R1,R1,0x1"),
                                                                                   ins("IADD", "R1,R1,0x1"), kCtl, ins("RET")}));
  EXPECT_EQ(parse_nvdisasm_json_text(past).size(), 2u);
}

TEST(StudyPascal, SsySyncDiamondReconvergesAtTheIpdom) {
  auto fns = parse_nvdisasm_json_text(doc(fn("k", 0, diamond())));
  Function& f = fns[0];
  set_targets(f, "SYNC", 0x50);
  const FunctionAnalysis a = analyze(f);
  ASSERT_EQ(a.placement.branches.size(), 1u);
  const BranchRecord& b = a.placement.branches[0];
  EXPECT_EQ(b.offset, 0x18u);
  EXPECT_EQ(b.bssy, 0x08u);
  EXPECT_EQ(b.ipdom, 0x50u);
  EXPECT_EQ(b.bsync, (std::vector<std::uint64_t>{0x50}));
  EXPECT_EQ(b.placement, "at");
  EXPECT_EQ(a.census.nesting_depth, 1);
  EXPECT_EQ(a.census.total("SSY"), 1);
  EXPECT_EQ(a.census.total("SYNC"), 2);
}

TEST(StudyPascal, DeferredSyncAndNesting) {
  // SSY 0x70 (outer); SSY 0x50 (inner) ; @P0 BRA 0x38 ; then: BRA 0x48 ; else ; join 0x48: SYNC(->0x50)
  // 0x50: @P1 SYNC (->0x70, a divergent exit of the outer region) ; IADD ; 0x70: EXIT
  std::vector<std::string> s = {
      kCtl, ins("SSY", "0x70"), ins("SSY", "0x50"), ins("BRA", "0x38", "@P0"),
      kCtl, ins("BRA", "0x48"), ins("NOP"), ins("IADD", "R1,R1,0x2"),
      kCtl, ins("SYNC"), ins("SYNC", "", "@P1"), ins("IADD", "R1,R1,0x3"),
      kCtl, ins("SYNC"), ins("EXIT"), ins("BRA", "0x70")};
  auto fns = parse_nvdisasm_json_text(doc(fn("k", 0, s)));
  Function& f = fns[0];
  for (auto& i : f.instructions)
    if (i.base == "SYNC") i.targets = {i.offset == 0x48 ? 0x50u : 0x70u};
  const FunctionAnalysis a = analyze(f);
  EXPECT_EQ(a.census.nesting_depth, 2);
  // The inner SSY (0x10) reconverges the @P0 BRA fully (every path reaches its target 0x50), so it
  // alone guards it; its target lies strictly beyond the join 0x48: deferred. (Before the
  // back-to-back fix both SSYs guarded the @P0 BRA, both `after`, and the @P1 SYNC was unguarded.)
  int records = 0;
  for (const auto& b : a.placement.branches) {
    if (b.offset != 0x18) continue;
    ++records;
    EXPECT_EQ(b.bssy, 0x10u);
    EXPECT_EQ(b.ipdom, 0x48u);
    EXPECT_EQ(b.placement, "after");
  }
  EXPECT_EQ(records, 1);
  // The outer SSY (0x08) guards the next branch after the inner region closes: the divergent
  // @P1 SYNC at 0x50, whose IPDom is the outer target 0x70.
  bool outer_seen = false;
  for (const auto& b : a.placement.branches)
    if (b.offset == 0x50) {
      outer_seen = true;
      EXPECT_EQ(b.bssy, 0x8u);
      EXPECT_EQ(b.ipdom, 0x70u);
      EXPECT_EQ(b.placement, "at");
    }
  EXPECT_TRUE(outer_seen);
}

TEST(StudyPascal, ImmediateFullMaskWarpsyncIsFull) {
  Function f;
  f.name = "w";
  for (std::string text : {"WARPSYNC 0xffffffff", "WARPSYNC R4", "WARPSYNC.ALL", "WARPSYNC 0xff"}) {
    Instruction i;
    i.offset = 16 * f.instructions.size();
    auto sp = text.find(' ');
    i.opcode = text.substr(0, sp);
    split_opcode(i.opcode, i.base, i.modifiers);
    if (sp != std::string::npos) i.operands = split_operands(text.substr(sp + 1));
    f.instructions.push_back(i);
  }
  const Census c = take_census(f);
  EXPECT_EQ(c.count("WARPSYNC", "ALL"), 2);
  EXPECT_EQ(c.count("WARPSYNC", "mask"), 2);
}
