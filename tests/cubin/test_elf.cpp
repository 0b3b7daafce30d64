// ELF reader and patcher: real cubins built in this tree (sm_90, sm_100, sm_120), both CUDA ABI
// versions of e_flags, byte-exact round trips and every refusal case of the library, including the
// crafted files of tests/support/crafted_elf.hpp.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "cubin_paths.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/cubin/elf.hpp"
#include "divbench/cubin/patch.hpp"
#include "divbench/sass/nvdisasm.hpp"
#include "support/crafted_elf.hpp"

using namespace divbench;
using namespace divbench::cubin;
using test::cubin_path;

namespace {
std::vector<std::uint8_t> flip90() { return read_file_bytes(cubin_path("flip_test", 90)); }

template <typename T>
void poke(std::vector<std::uint8_t>& b, std::size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

void expect_refused(std::vector<std::uint8_t> b, const std::string& needle) {
  try {
    CubinFile::parse(std::move(b), "x.cubin");
    ADD_FAILURE() << "accepted; expected a refusal containing '" << needle << "'";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(CubinElf, ReadsBuiltCubinsOfEachArchitecture) {
  for (int sm : {90, 100, 120}) {
    const CubinFile f = CubinFile::load(cubin_path("flip_test", sm));
    EXPECT_EQ(f.sm(), sm);
    EXPECT_EQ(f.header().machine, kEmCuda);
    EXPECT_EQ(f.header().abi_version, 8);  // CUDA 13
    EXPECT_EQ(f.header().os_abi, 0x41);
    ASSERT_EQ(f.functions(), std::vector<std::string>{"flip_test"});
    const Section& t = f.text_section("flip_test");
    EXPECT_GT(t.size, 0u);
    EXPECT_EQ(t.size % 16, 0u);
    bool found = false;
    for (const auto& s : f.symbols())
      if (s.name == "flip_test") {
        found = true;
        EXPECT_EQ(s.type, 2);  // STT_FUNC
        EXPECT_EQ(s.shndx, t.index);
        EXPECT_EQ(s.size, t.size);
      }
    EXPECT_TRUE(found);
  }
  const CubinFile d = CubinFile::load(cubin_path("discover_corpus", 100));
  EXPECT_EQ(d.functions().size(), 3u);
}

TEST(CubinElf, SmNumberFromBothAbiVersions) {
  EXPECT_EQ(sass::sm_from_e_flags(0x0a005a04u, 8), 90);
  EXPECT_EQ(sass::sm_from_e_flags(0x00006404u, 8), 100);
  EXPECT_EQ(sass::sm_from_e_flags(0x0050055au, 7), 90);
  EXPECT_EQ(sass::sm_from_e_flags(0x00500550u, 7), 80);
  // An ABI-7 header (OS ABI 0x33, SM in bits 0-7) is accepted and decoded.
  auto b = flip90();
  b[7] = 0x33;
  b[8] = 7;
  poke<std::uint32_t>(b, 48, 0x0050055au);
  const CubinFile f = CubinFile::parse(b, "abi7");
  EXPECT_EQ(f.sm(), 90);
  EXPECT_EQ(f.header().abi_version, 7);
}

TEST(CubinElf, ByteExactRoundTripOfAnUnmodifiedCubin) {
  namespace fs = std::filesystem;
  for (int sm : {90, 100}) {
    const auto orig = read_file_bytes(cubin_path("flip_test", sm));
    const CubinFile f = CubinFile::parse(orig, "rt");
    const std::string out = (fs::temp_directory_path() / ("divbench-rt-" + std::to_string(sm) + ".cubin")).string();
    write_file_bytes_atomic(out, f.bytes());
    EXPECT_EQ(read_file_bytes(out), orig);
    fs::remove(out);
  }
}

TEST(CubinPatch, ChangesOnlyTheFieldAndRestores) {
  const auto orig = flip90();
  CubinFile f = CubinFile::parse(orig, "p");
  const Section& t = f.text_section("flip_test");
  const BitField fld = parse_bit_field("72:2");
  auto a = apply_patches(f, {{"flip_test", 0x40, fld, 3}});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].file_offset, t.offset + 0x40);
  std::size_t diff = 0;
  for (std::size_t i = 0; i < orig.size(); ++i)
    if (orig[i] != f.bytes()[i]) {
      ++diff;
      EXPECT_EQ(i, t.offset + 0x40 + 9);  // bits 72-73 live in byte 9 of the word
    }
  EXPECT_EQ(diff, 1u);
  EXPECT_EQ(a[0].new_hi ^ a[0].old_hi, (a[0].old_value ^ 3u) << 8);
  EXPECT_EQ(a[0].new_lo, a[0].old_lo);
  apply_patches(f, {{"flip_test", 0x40, fld, a[0].old_value}});
  EXPECT_EQ(f.bytes(), orig);
}

TEST(CubinPatch, FieldAccessAcrossTheHalfWordBoundary) {
  std::uint8_t w[16] = {0};
  set_field(w, {60, 8}, 0xa5);
  EXPECT_EQ(get_field(w, {60, 8}), 0xa5u);
  EXPECT_EQ(w[7], 0x50);
  EXPECT_EQ(w[8], 0x0a);
  set_field(w, {127, 1}, 1);
  EXPECT_EQ(w[15], 0x80);
  set_field(w, {0, 64}, ~0ull);
  EXPECT_EQ(get_field(w, {0, 64}), ~0ull);
}

TEST(CubinPatch, RefusesBadBitsAndValues) {
  EXPECT_THROW(parse_bit_field("127:2"), UsageError);   // beyond bit 127
  EXPECT_THROW(parse_bit_field("128"), UsageError);
  EXPECT_THROW(parse_bit_field("72:0"), UsageError);
  EXPECT_THROW(parse_bit_field("0:65"), UsageError);
  EXPECT_THROW(parse_bit_field("-1:2"), UsageError);
  EXPECT_THROW(parse_bit_field("72:"), UsageError);
  EXPECT_THROW(parse_bit_field("x"), UsageError);
  EXPECT_EQ(parse_bit_field("126:2").first, 126);
  EXPECT_EQ(parse_bit_field("5").width, 1);
  EXPECT_THROW(check_value_fits({72, 2}, 4), UsageError);
  EXPECT_NO_THROW(check_value_fits({72, 2}, 3));
  EXPECT_NO_THROW(check_value_fits({0, 64}, ~0ull));
}

TEST(CubinPatch, RefusesOffsetsOutsideTextAndLeavesTheFileUntouched) {
  const auto orig = flip90();
  CubinFile f = CubinFile::parse(orig, "p");
  const Section& t = f.text_section("flip_test");
  const BitField fld{72, 2};
  EXPECT_THROW(apply_patches(f, {{"flip_test", 0x48, fld, 1}}), UsageError);     // not on a boundary
  EXPECT_THROW(apply_patches(f, {{"flip_test", t.size, fld, 1}}), UsageError);   // past the section
  EXPECT_THROW(apply_patches(f, {{"flip_test", 1ull << 40, fld, 1}}), UsageError);
  EXPECT_THROW(apply_patches(f, {{"nope", 0, fld, 1}}), UsageError);             // no .text.nope
  EXPECT_THROW(apply_patches(f, {{"flip_test", 0, {72, 2}, 4}}), UsageError);    // value too wide
  // All-or-nothing: a valid request followed by an invalid one changes nothing.
  EXPECT_THROW(apply_patches(f, {{"flip_test", 0x40, fld, 3}, {"flip_test", 0x41, fld, 3}}), UsageError);
  EXPECT_EQ(f.bytes(), orig);
}

TEST(CubinElf, RefusesUnknownLayouts) {
  const auto good = flip90();
  auto b = good;
  b[0] = 0;
  expect_refused(b, "not an ELF file");
  b = good;
  b[4] = 1;
  expect_refused(b, "not ELF64");
  b = good;
  b[5] = 2;
  expect_refused(b, "not little endian");
  b = good;
  poke<std::uint16_t>(b, 18, 62);  // x86-64
  expect_refused(b, "not EM_CUDA");
  b = good;
  b[8] = 9;
  expect_refused(b, "unknown CUDA ELF layout");
  b = good;
  b[7] = 0x33;  // ABI 8 numbering with the ABI-7 OS ABI byte
  expect_refused(b, "unknown CUDA ELF layout");
  b = good;
  b.resize(40);
  expect_refused(b, "too short");
  b = good;
  b.resize(good.size() - 100);  // program header table cut off
  expect_refused(b, "program header table beyond the end of the file");
  b = good;
  b.resize(CubinFile::parse(good, "g").header().shoff + 100);  // section header table cut off
  expect_refused(b, "section header table beyond the end of the file");
  b = good;
  poke<std::uint16_t>(b, 58, 40);
  expect_refused(b, "section header size");
  b = good;
  poke<std::uint16_t>(b, 62, 999);
  expect_refused(b, "section name table index");
  // A section whose data lies beyond the end of the file.
  b = good;
  const CubinFile f = CubinFile::parse(good, "g");
  const Section& t = f.text_section("flip_test");
  poke<std::uint64_t>(b, f.header().shoff + std::uint64_t(t.index) * 64 + 32, good.size());
  expect_refused(b, "extends beyond the end of the file");
  // A .text section whose size is not a whole number of instructions.
  b = good;
  poke<std::uint64_t>(b, f.header().shoff + std::uint64_t(t.index) * 64 + 32, t.size - 8);
  expect_refused(b, "not a multiple of 16");
  EXPECT_THROW(CubinFile::load("/nonexistent/x.cubin"), UsageError);
}

// Crafted cubins that once crashed the reader (string tables that are section 0, SHT_NOBITS or
// missing; a NOBITS .text; tables whose end wraps past 2^64). Each is refused with one UsageError.
TEST(CubinElf, RefusesCraftedFilesThatCrashedTheReader) {
  const auto files = divbench::testing::crafted_files();
  ASSERT_NO_THROW(CubinFile::parse(files.at("minimal.cubin").bytes, "minimal"));
  const CubinFile f = CubinFile::parse(files.at("minimal.cubin").bytes, "minimal");
  EXPECT_EQ(f.functions(), std::vector<std::string>{"k"});
  ASSERT_EQ(f.symbols().size(), 2u);
  EXPECT_EQ(f.symbols()[1].name, "k");
  int refused = 0;
  for (const auto& [name, file] : files) {
    if (file.what.empty()) continue;
    SCOPED_TRACE(name);
    expect_refused(file.bytes, file.what);
    ++refused;
  }
  EXPECT_GE(refused, 8);
}

// One ELF reader under both front doors: a file broken in its header or section table is refused by
// `divbench sass` (inspect_bytes) and by the bit-flip tools (CubinFile::parse) with the same message.
TEST(CubinElf, InspectAndTheCubinReaderRefuseWithTheSameMessage) {
  const auto files = divbench::testing::crafted_files();
  const auto good = flip90();
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> cases = {
      {"magic_only", files.at("magic_only.cubin").bytes},
      {"shoff_wraps", files.at("shoff_wraps.cubin").bytes},
      {"section_size_wraps", files.at("section_size_wraps.cubin").bytes},
      {"text", divbench::testing::bytes_of("plain text, not ELF")},
      {"empty", {}}};
  auto b = good;
  b[4] = 1;
  cases.push_back({"elf32", b});
  b = good;
  b[5] = 2;
  cases.push_back({"big_endian", b});
  b = good;
  poke<std::uint16_t>(b, 58, 40);
  cases.push_back({"shentsize", b});
  b = good;
  b.resize(good.size() - 100);
  cases.push_back({"phdr_cut", b});
  b = good;
  b.resize(CubinFile::parse(good, "g").header().shoff + 100);
  cases.push_back({"shdr_cut", b});
  for (const auto& [what, bytes] : cases) {
    SCOPED_TRACE(what);
    std::string via_cubin, via_inspect;
    try {
      CubinFile::parse(bytes, "f");
    } catch (const UsageError& e) {
      via_cubin = e.what();
    }
    try {
      sass::inspect_bytes(std::string(bytes.begin(), bytes.end()), "f");
    } catch (const UsageError& e) {
      via_inspect = e.what();
    }
    EXPECT_FALSE(via_cubin.empty());
    EXPECT_EQ(via_cubin, via_inspect);
  }
  // And the same SM from the same e_flags.
  EXPECT_EQ(sass::inspect_bytes(std::string(good.begin(), good.end()), "g").sm, CubinFile::parse(good, "g").sm());
}

// A FIFO is refused at once (opening it for reading used to block forever).
TEST(CubinElf, RefusesAFifoWithoutBlocking) {
  namespace fs = std::filesystem;
  const std::string fifo = (fs::temp_directory_path() / ("divbench-fifo-" + std::to_string(::getpid()))).string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    CubinFile::load(fifo);
    ADD_FAILURE() << "a FIFO was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  fs::remove(fifo);
  EXPECT_THROW(CubinFile::load(fs::temp_directory_path().string()), UsageError);  // a directory
}
