// Verification by disassembly and encoding-field discovery on cubins built in this tree.
// Needs nvdisasm (CI installs it from PyPI); skips with a message when it is absent.
#include <gtest/gtest.h>

#include <set>

#include "cubin_paths.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/cubin/discover.hpp"
#include "divbench/cubin/disasm.hpp"
#include "divbench/cubin/patch.hpp"
#include "divbench/cubin/verify.hpp"

using namespace divbench;
using namespace divbench::cubin;
using test::cubin_path;

#define NEED_NVDISASM(var)                                              \
  const std::string var = test::test_nvdisasm();                         \
  if (var.empty()) GTEST_SKIP() << "nvdisasm not found (pip install nvidia-cuda-nvdisasm)"

namespace {
// Offset of the first instruction whose opcode is exactly `opcode`.
std::uint64_t first(const sass::Function& fn, const std::string& opcode) {
  for (const auto& i : fn.instructions)
    if (i.opcode == opcode) return i.offset;
  ADD_FAILURE() << "no " << opcode;
  return 0;
}
}  // namespace

TEST(CubinVerify, UnpatchedCubinHasNoChanges) {
  NEED_NVDISASM(nvd);
  const CubinFile f = CubinFile::load(cubin_path("flip_test", 100));
  const VerifyReport r = verify_patch(f, f, "flip_test", nvd);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.patched.empty());
  EXPECT_TRUE(r.text_changed.empty());
  EXPECT_GT(r.instructions, 20u);
}

TEST(CubinVerify, SingleInstructionDiffAfterAFlipOnSm100) {
  NEED_NVDISASM(nvd);
  const CubinFile f = CubinFile::load(cubin_path("flip_test", 100));
  const sass::Cubin dis = disassemble_bytes(f, nvd);
  const auto& fn = function_named(dis, "flip_test");
  const std::uint64_t off = first(fn, "BSSY.RECONVERGENT");
  CubinFile p = f;
  apply_patches(p, {{"flip_test", off, {72, 2}, 1}});
  const VerifyReport r = verify_patch(f, dis, p, "flip_test", nvd);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.text_changed.size(), 1u);
  EXPECT_EQ(r.text_changed[0].offset, off);
  EXPECT_TRUE(r.text_changed[0].patched);
  EXPECT_EQ(r.text_changed[0].before.rfind("BSSY.RECONVERGENT B", 0), 0u) << r.text_changed[0].before;
  EXPECT_EQ(r.text_changed[0].after.rfind("BSSY.RELIABLE B", 0), 0u) << r.text_changed[0].after;
  EXPECT_EQ(r.patched, std::vector<std::uint64_t>{off});
  EXPECT_TRUE(r.unexpected.empty());
}

TEST(CubinVerify, PositiveControlPredicatesTheStoreOff) {
  NEED_NVDISASM(nvd);
  const CubinFile f = CubinFile::load(cubin_path("flip_test", 90));
  const sass::Cubin dis = disassemble_bytes(f, nvd);
  const auto stores = select_instructions(function_named(dis, "flip_test"), "STG*", -1, true);
  ASSERT_GE(stores.size(), 2u);
  CubinFile p = f;
  apply_patches(p, {{"flip_test", stores[0]->offset, {12, 4}, 0xF}});
  const VerifyReport r = verify_patch(f, dis, p, "flip_test", nvd);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.text_changed.size(), 1u);
  EXPECT_EQ(r.text_changed[0].after, "@!PT " + stores[0]->text());
}

TEST(CubinVerify, Sm90BarrierClassBitsPrintNothingAndUndecodableIsReported) {
  NEED_NVDISASM(nvd);
  const CubinFile f = CubinFile::load(cubin_path("flip_test", 90));
  const sass::Cubin dis = disassemble_bytes(f, nvd);
  const std::uint64_t off = first(function_named(dis, "flip_test"), "BSSY");
  CubinFile p = f;
  apply_patches(p, {{"flip_test", off, {72, 2}, 2}});
  VerifyReport r = verify_patch(f, dis, p, "flip_test", nvd);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.text_changed.empty());
  EXPECT_EQ(r.silent, std::vector<std::uint64_t>{off});  // bytes changed, text did not
}

TEST(CubinVerify, UndecodablePatchIsReportedNotThrown) {
  NEED_NVDISASM(nvd);
  // On sm_100 the class field value 3 of BSSY is not a valid encoding: nvdisasm rejects the cubin.
  const CubinFile f = CubinFile::load(cubin_path("flip_test", 100));
  const sass::Cubin dis = disassemble_bytes(f, nvd);
  CubinFile q = f;
  q.set_name("flip_test.sm_100.cubin (patched)");
  apply_patches(q, {{"flip_test", first(function_named(dis, "flip_test"), "BSSY.RECONVERGENT"), {72, 2}, 3}});
  const VerifyReport r = verify_patch(f, dis, q, "flip_test", nvd);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("disassembly failed"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("(patched)"), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find("/tmp/"), std::string::npos) << r.error;
}

TEST(CubinSelect, MatchNthAllAndRefusals) {
  NEED_NVDISASM(nvd);
  const CubinFile f = CubinFile::load(cubin_path("flip_test", 90));
  const sass::Cubin dis = disassemble_bytes(f, nvd);
  const auto& fn = function_named(dis, "flip_test");
  const auto all = select_instructions(fn, "BSSY*,BSYNC*", -1, true);
  EXPECT_EQ(all.size(), 6u);  // three BSSY/BSYNC pairs in the test kernel
  for (const auto* i : all) EXPECT_TRUE(i->base == "BSSY" || i->base == "BSYNC");
  const auto bssy = select_instructions(fn, "BSSY*", -1, true);
  ASSERT_EQ(bssy.size(), 3u);
  EXPECT_EQ(select_instructions(fn, "BSSY*", 2, false).front(), bssy[2]);
  EXPECT_THROW(select_instructions(fn, "BSSY*", -1, false), UsageError);  // ambiguous
  EXPECT_THROW(select_instructions(fn, "BSSY*", 3, false), UsageError);   // only 0..2
  EXPECT_THROW(select_instructions(fn, "NOPE*", -1, true), UsageError);
  EXPECT_THROW(select_instructions(fn, ",", -1, true), UsageError);
  EXPECT_THROW(function_named(dis, "other"), UsageError);
}

TEST(CubinDiscover, FindsTheBlackwellBarrierClassBits) {
  NEED_NVDISASM(nvd);
  for (int sm : {100, 120}) {
    std::vector<CubinFile> files;
    std::vector<sass::Cubin> dis;
    for (const char* src : {"flip_test", "discover_corpus"}) files.push_back(CubinFile::load(cubin_path(src, sm)));
    for (const auto& f : files) dis.push_back(disassemble_bytes(f, nvd));
    std::vector<CorpusEntry> corpus;
    for (std::size_t i = 0; i < files.size(); ++i) corpus.push_back({&files[i], &dis[i]});
    const auto fields = discover_modifier_fields(corpus);
    std::set<std::string> seen;
    for (const auto& f : fields) {
      if (f.base != "BSSY" && f.base != "BSYNC") continue;
      const std::string b = f.base;
      if (f.from == b && f.to == b + ".RECONVERGENT") {
        EXPECT_EQ(f.bits, std::vector<int>{73}) << "sm_" << sm << " " << f.to;
        EXPECT_EQ(f.to_bits, "1");
      } else if (f.from == b && f.to == b + ".RELIABLE") {
        EXPECT_EQ(f.bits, std::vector<int>{72}) << "sm_" << sm << " " << f.to;
      } else if (f.from == b + ".RECONVERGENT" && f.to == b + ".RELIABLE") {
        EXPECT_EQ(f.bits, (std::vector<int>{72, 73})) << "sm_" << sm;
        EXPECT_EQ(f.from_bits, "10");  // .RECONVERGENT = field value 2
        EXPECT_EQ(f.to_bits, "01");    // .RELIABLE = field value 1
      } else {
        continue;
      }
      seen.insert(f.from + "->" + f.to);
    }
    // At least RECONVERGENT vs RELIABLE for both opcodes must be in the corpus.
    EXPECT_TRUE(seen.count("BSSY.RECONVERGENT->BSSY.RELIABLE")) << "sm_" << sm;
    EXPECT_TRUE(seen.count("BSYNC.RECONVERGENT->BSYNC.RELIABLE")) << "sm_" << sm;
  }
}

TEST(CubinDiscover, NoBarrierClassOnSm90) {
  NEED_NVDISASM(nvd);
  std::vector<CubinFile> files;
  std::vector<sass::Cubin> dis;
  for (const char* src : {"flip_test", "discover_corpus"}) files.push_back(CubinFile::load(cubin_path(src, 90)));
  for (const auto& f : files) dis.push_back(disassemble_bytes(f, nvd));
  std::vector<CorpusEntry> corpus;
  for (std::size_t i = 0; i < files.size(); ++i) corpus.push_back({&files[i], &dis[i]});
  for (const auto& f : discover_modifier_fields(corpus)) EXPECT_NE(f.base, "BSSY") << f.to;
}
