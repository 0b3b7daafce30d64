// Real cubins compiled at build time for sm_80, sm_90, sm_100, sm_120 (tests/sass/kernels and
// divbench's own kernels/): the analyzer's CFG equals nvdisasm -bbcfg for every function after
// both are reduced to maximal straight-line blocks; the census tells the generations apart;
// control words decode to the documented opcode and barrier fields.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bbcfg_dot.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/sass/analysis.hpp"
#include "divbench/sass/control_word.hpp"
#include "divbench/sass/elf_facts.hpp"
#include "divbench/sass/nvdisasm.hpp"
#include "divbench/sass/regions.hpp"

namespace fs = std::filesystem;
using namespace divbench::sass;
using namespace divbench::sass::test;

namespace {

// nvdisasm found the way the tool finds it; absent -> skip, unless CI demands it.
std::string nvdisasm_or_skip() {
  const std::string p = locate_tool("nvdisasm");
  if (p.empty()) {
    const char* req = std::getenv("DIVBENCH_REQUIRE_NVDISASM");
    if (req && std::string(req) == "1") ADD_FAILURE() << "nvdisasm not found but DIVBENCH_REQUIRE_NVDISASM=1";
  }
  return p;
}

std::vector<std::string> cubins(const std::string& arch_suffix = "") {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(DIVBENCH_SASS_CUBIN_DIR))
    if (e.path().extension() == ".cubin" &&
        (arch_suffix.empty() || e.path().filename().string().find("." + arch_suffix + ".") != std::string::npos))
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string describe(const SimpleGraph& g) {
  std::ostringstream s;
  for (std::size_t i = 0; i < g.starts.size(); ++i) {
    s << std::hex << "  0x" << g.starts[i] << " ->";
    for (auto t : g.succ[i]) s << " 0x" << t;
    s << "\n";
  }
  return s.str();
}

}  // namespace

TEST(SassCubins, BuiltForEveryTestedArchitecture) {
  for (const char* a : {"sm_80", "sm_90", "sm_100", "sm_120"}) EXPECT_FALSE(cubins(a).empty()) << a;
}

namespace {

// CFG of every function = nvdisasm -bbcfg, after both are reduced to maximal straight-line blocks.
void expect_cfg_equals_bbcfg(const Cubin& c, const std::string& nd, int& functions, int& call_edges) {
  auto r = divbench::run_process({nd, "-bbcfg", "-poff", c.path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto clusters = parse_bbcfg_dot(r.out);
  for (const auto& f : c.functions) {
    std::vector<const DotCluster*> mine;
    for (const auto& cl : clusters)
      if (cl.name == f.name || f.subroutines.count(cl.name)) mine.push_back(&cl);
    ASSERT_FALSE(mine.empty()) << c.path << ": no -bbcfg cluster for " << f.name;
    std::string problem;
    const SimpleGraph theirs = reduce_straight_line(dot_graph(mine, &problem, &call_edges));
    EXPECT_TRUE(problem.empty()) << c.path << " " << f.name << ": " << problem;
    const SimpleGraph ours = reduce_straight_line(to_simple_graph(build_cfg(f)));
    EXPECT_EQ(ours.starts, theirs.starts) << c.path << " " << f.name << "\nours:\n" << describe(ours) << "nvdisasm:\n"
                                          << describe(theirs);
    EXPECT_EQ(ours.succ, theirs.succ) << c.path << " " << f.name << "\nours:\n" << describe(ours) << "nvdisasm:\n"
                                      << describe(theirs);
    ++functions;
  }
}

// Control words decode to the documented opcode, guard and barrier fields.
void expect_control_words(const Cubin& c, int& checked) {
  const std::string& path = c.path;
  for (const auto& f : c.functions)
    for (const auto& ins : f.instructions) {
      if (!ins.control_flow) continue;
      ASSERT_TRUE(ins.encoding.has_value()) << path << " " << f.name << " " << ins.text();
      const auto w = decode_control(ins);
      ASSERT_TRUE(w.has_value());
      const std::map<std::string, int> opcode{{"BSSY", 0x945}, {"BSYNC", 0x941}, {"EXIT", 0x94d}};
      if (opcode.count(ins.base)) {
        EXPECT_EQ(w->opcode_bits, opcode.at(ins.base)) << path << " " << ins.text();
      }
      // Observed with nvdisasm 13.5: BRA 0x947, but BRA.U is 0x547 on Blackwell; bit 32 is set by
      // .U and .CONV, bit 33 by .DIV and .CONV.
      if (ins.base == "BRA") {
        EXPECT_EQ(w->opcode_bits, ins.has("U") && c.sm >= 100 ? 0x547 : 0x947) << path << " " << ins.text();
        EXPECT_EQ(ins.encoding->bit(32), ins.has("U") || ins.has("CONV")) << path << " " << ins.text();
        EXPECT_EQ(ins.encoding->bit(33), ins.has("DIV") || ins.has("CONV")) << path << " " << ins.text();
      }
      if (ins.base == "BSSY" || ins.base == "BSYNC") {
        EXPECT_EQ(w->barrier_reg, barrier_number(ins.operands.at(0))) << path << " " << ins.text();
        EXPECT_EQ(ins.encoding->bit(73), ins.has("RECONVERGENT")) << path << " " << ins.text();
        EXPECT_EQ(ins.encoding->bit(72), ins.has("RELIABLE")) << path << " " << ins.text();
      }
      EXPECT_EQ(w->guard_bits == 7 && !w->guard_negate, !ins.guarded()) << path << " " << ins.text();
      EXPECT_LE(w->stall, 15);
      ++checked;
    }
}

}  // namespace

// One pass over one architecture's cubins (each disassembled once, nvdisasm being the slow part):
// CFG vs -bbcfg, control words, and the census per generation — .RECONVERGENT and BRA.U on
// sm_100/sm_120, neither on sm_80/sm_90. One test per architecture, so ctest -j runs them in parallel.
class SassCubinsPerArch : public ::testing::TestWithParam<const char*> {};

TEST_P(SassCubinsPerArch, CfgEqualsBbcfgControlWordsAndCensus) {
  const auto nd = nvdisasm_or_skip();
  if (nd.empty()) GTEST_SKIP() << "nvdisasm not found";
  const std::string arch = GetParam();
  int functions = 0, checked = 0;
  Census total;
  int call_edges = 0;  // recursive CALL -> own entry edges nvdisasm draws (bbcfg_dot.hpp)
  for (const auto& path : cubins(arch)) {
    const Cubin c = disassemble(path, nd);
    EXPECT_EQ("sm_" + std::to_string(c.sm), arch) << path;
    expect_cfg_equals_bbcfg(c, nd, functions, call_edges);
    expect_control_words(c, checked);
    total += analyze(c).census;
  }
  // The corpus's recursive __noinline__ functions (kernels/corpus/calls.cu) must exercise that rule.
  EXPECT_GT(call_edges, 0) << arch;
  const bool blackwell = arch == "sm_100" || arch == "sm_120";
  const int reconvergent = total.count("BSSY", "RECONVERGENT") + total.count("BSYNC", "RECONVERGENT");
  const int bra_u = total.count("BRA", "U");
  EXPECT_GT(total.total("BSSY"), 0) << arch;
  if (blackwell) {
    EXPECT_GT(reconvergent, 0) << arch;
    EXPECT_GT(bra_u, 0) << arch;
  } else {
    EXPECT_EQ(reconvergent, 0) << arch;
    EXPECT_EQ(bra_u, 0) << arch;
  }
  EXPECT_GT(functions, 0);
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(Archs, SassCubinsPerArch, ::testing::Values("sm_80", "sm_90", "sm_100", "sm_120"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

// One nvdisasm run per cubin (the JSON listing plus the cubin's own bytes, elf_facts.hpp) gives the
// model that two gave (the text listing merged in): every encoding, subroutine symbol, CALL target and
// branch target equal, on every cubin of the first and the last architecture the tests build (their
// encodings and BSSY/BRA forms differ). A cubin with a BRX still runs the text listing; the counts
// show that the one-run path was taken and met subroutines.
class ElfFactsPerArch : public ::testing::TestWithParam<const char*> {};

TEST_P(ElfFactsPerArch, OneRunEqualsTextListingMerged) {
  const auto nd = nvdisasm_or_skip();
  if (nd.empty()) GTEST_SKIP() << "nvdisasm not found";
  DisassembleOptions two_runs;
  two_runs.text_listing = true;
  int one_run_cubins = 0, subroutines = 0, call_targets = 0, encodings = 0;
  for (const auto& path : cubins(GetParam())) {
    const Cubin one = disassemble(path, nd);
    const Cubin two = disassemble(path, nd, two_runs);
    ASSERT_EQ(one.functions.size(), two.functions.size()) << path;
    for (std::size_t i = 0; i < one.functions.size(); ++i) {
      const Function &a = one.functions[i], &b = two.functions[i];
      ASSERT_EQ(a.name, b.name) << path;
      EXPECT_EQ(a.subroutines, b.subroutines) << path << " " << a.name;
      subroutines += static_cast<int>(a.subroutines.size());
      ASSERT_EQ(a.instructions.size(), b.instructions.size()) << path << " " << a.name;
      for (std::size_t k = 0; k < a.instructions.size(); ++k) {
        const Instruction &x = a.instructions[k], &y = b.instructions[k];
        const std::string where = path + " " + a.name + " " + y.text();
        ASSERT_TRUE(x.encoding.has_value() && y.encoding.has_value()) << where;
        EXPECT_EQ(x.encoding->lo, y.encoding->lo) << where;
        EXPECT_EQ(x.encoding->hi, y.encoding->hi) << where;
        EXPECT_EQ(x.encoding->bits, y.encoding->bits) << where;
        EXPECT_EQ(x.targets, y.targets) << where;
        EXPECT_EQ(x.call_symbol, y.call_symbol) << where;
        EXPECT_EQ(x.control_flow, y.control_flow) << where;
        ++encodings;
        if (x.base == "CALL" && !x.targets.empty()) ++call_targets;
      }
    }
    if (!has_indirect_branch(one.functions)) ++one_run_cubins;
  }
  EXPECT_GT(one_run_cubins, 0) << GetParam();
  EXPECT_GT(subroutines, 0) << GetParam() << ": the corpus's __noinline__ callees (kernels/corpus/calls.cu)";
  EXPECT_GT(call_targets, 0) << GetParam();
  EXPECT_GT(encodings, 0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Archs, ElfFactsPerArch, ::testing::Values("sm_80", "sm_120"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

TEST(SassCubins, UnsupportedArchitectureIsOneClearError) {
  const auto nd = nvdisasm_or_skip();
  if (nd.empty()) GTEST_SKIP() << "nvdisasm not found";
  const auto list = cubins("sm_80");
  ASSERT_FALSE(list.empty());
  std::ifstream in(list.front(), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes[0x31] = static_cast<char>(61);  // e_flags bits 8-15 (ELF ABI version 8): sm_61
  divbench::TempDir tmp;
  const std::string patched = tmp.path() + "/sm61.cubin";
  std::ofstream(patched, std::ios::binary) << bytes;
  try {
    disassemble(patched, nd);
    FAIL() << "sm_61 accepted by " << nd;
  } catch (const divbench::UsageError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unsupported architecture sm_61"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}
