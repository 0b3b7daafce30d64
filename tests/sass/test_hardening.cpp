// Regressions of the SASS front end on hostile input: inspect_bytes on crafted ELF files (bounds that wrapped
// past 2^64), parse_integer on literals beyond int64 (signed overflow), an instruction line of a
// million characters (the std::regex parser overflowed the stack at ~50,000), and a FIFO (blocked).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <limits>

#include "divbench/core/errors.hpp"
#include "divbench/sass/analysis.hpp"
#include "divbench/sass/elf.hpp"
#include "divbench/sass/nvdisasm.hpp"
#include "divbench/sass/parse.hpp"
#include "support/crafted_elf.hpp"

using namespace divbench;
using namespace divbench::sass;

namespace {
std::string str(const std::vector<std::uint8_t>& b) { return std::string(b.begin(), b.end()); }

void expect_inspect_refuses(const std::string& bytes, const std::string& needle) {
  try {
    inspect_bytes(bytes, "x");
    ADD_FAILURE() << "accepted; expected '" << needle << "'";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(InspectFile, BoundsThatWrapPast2To64AreRefused) {
  const auto files = divbench::testing::crafted_files();
  EXPECT_EQ(inspect_bytes(str(files.at("minimal.cubin").bytes), "m").kind, FileKind::cubin);
  EXPECT_EQ(inspect_bytes(str(files.at("minimal.cubin").bytes), "m").sm, 90);
  expect_inspect_refuses(str(files.at("shoff_wraps.cubin").bytes), "section header table beyond the end of the file, 64 bytes");
  expect_inspect_refuses(str(files.at("section_size_wraps.cubin").bytes), "section 4 extends beyond the end of the file");
  expect_inspect_refuses(str(files.at("magic_only.cubin").bytes), "too short for an ELF64 header (4 bytes)");
  expect_inspect_refuses("plain text, not ELF", "not an ELF file");
  auto b = files.at("minimal.cubin").bytes;
  divbench::testing::poke<std::uint16_t>(b, 58, 16);  // e_shentsize below 64
  expect_inspect_refuses(str(b), "section header size 16");
}

// The ELF reader itself: the section table of the crafted minimal cubin (header | data | table).
TEST(ElfReader, SectionTableOfTheMinimalCubin) {
  const auto bytes = divbench::testing::crafted_files().at("minimal.cubin").bytes;
  ElfImage img = read_elf(bytes.data(), bytes.size(), "m");
  EXPECT_EQ(img.header.machine, kEmCuda);
  EXPECT_EQ(img.header.abi_version, 8);
  EXPECT_EQ(sm_from_e_flags(img.header.flags, img.header.abi_version), 90);
  ASSERT_EQ(img.sections.size(), 5u);
  elf_section_names(bytes.data(), bytes.size(), img, "m");
  const ElfSection& text = img.sections[4];
  EXPECT_EQ(text.name, ".text.k");
  EXPECT_EQ(text.size, 32u);
  EXPECT_TRUE(has_file_bytes(text, bytes.size()));
  EXPECT_FALSE(has_file_bytes(img.sections[0], bytes.size()));  // the null section has none
  EXPECT_TRUE(fits_in(~std::uint64_t(0), 0, ~std::uint64_t(0)));
  EXPECT_FALSE(fits_in(8, ~std::uint64_t(0), 16));  // off + len wraps: refused, not accepted
}

TEST(InspectFile, RefusesFifoDirectoryAndMissingFile) {
  namespace fs = std::filesystem;
  const std::string fifo = (fs::temp_directory_path() / ("divbench-fifo-s-" + std::to_string(::getpid()))).string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(inspect_file(fifo), UsageError);  // returns at once: nothing writes to the FIFO
  fs::remove(fifo);
  EXPECT_THROW(inspect_file(fs::temp_directory_path().string()), UsageError);
  EXPECT_THROW(inspect_file("/nonexistent/divbench.cubin"), UsageError);
}

TEST(ParseInteger, RefusesLiteralsBeyondInt64) {
  EXPECT_EQ(parse_integer("0x7fffffffffffffff"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(parse_integer("-0x8000000000000000"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(parse_integer("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  EXPECT_FALSE(parse_integer("0x8000000000000000"));
  EXPECT_FALSE(parse_integer("9223372036854775808"));
  EXPECT_FALSE(parse_integer("-0x8000000000000001"));
  EXPECT_FALSE(parse_integer("0x10000000000000000000"));
  EXPECT_EQ(parse_integer("-0x260"), -0x260);
  EXPECT_EQ(parse_integer(" 0x1b0 "), 0x1b0);
  // A branch whose target does not fit is left without a target (it used to wrap to 0).
  Instruction bra;
  bra.opcode = bra.base = "BRA";
  bra.operands = {"0x100000000000000000"};
  infer_targets(bra);
  EXPECT_TRUE(bra.targets.empty());
}

TEST(ParseText, AMillionCharacterLineParsesInLinearTime) {
  const std::string head = "\t.section\t.text.k,\"ax\",@progbits\n.text.k:\n";
  auto listing = [&](std::size_t n) {
    return head + "        /*0000*/                   NOP " + std::string(n, 'R') + " ;   /* 0x000fc00000000000 */\n" +
           "                                                                /* 0x000fc00000000000 */\n";
  };
  const auto t0 = std::chrono::steady_clock::now();
  const auto fns = parse_nvdisasm_text(listing(1'000'000), 90);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(fns.size(), 1u);
  ASSERT_EQ(fns[0].instructions.size(), 1u);
  EXPECT_EQ(fns[0].instructions[0].operands.size(), 1u);
  EXPECT_EQ(fns[0].instructions[0].operands[0].size(), 1'000'000u);
  EXPECT_TRUE(fns[0].instructions[0].encoding.has_value());
  EXPECT_LT(s, 5.0) << "a 1 MB line took " << s << " s";
  // Many label references and BRANCH_TARGETS tables on one line stay linear too.
  std::string refs;
  for (int i = 0; i < 20000; ++i) refs += "`(.L_x_1), ";
  const auto many = parse_nvdisasm_text(head + "        /*0000*/  BRA " + refs + "0 ;\n", 90);
  ASSERT_EQ(many.size(), 1u);
  ASSERT_EQ(many[0].instructions.size(), 1u);
}

TEST(ParseText, OffsetsBeyond64BitsAreOneUsageError) {
  const std::string l = "\t.section\t.text.k,\"ax\",@progbits\n        /*00000000000000000001000*/  NOP ;\n"
                        "        /*10000000000000000000*/  NOP ;\n";
  EXPECT_THROW(parse_nvdisasm_text(l, 90), UsageError);
}

// Found by fuzz_nvdisasm_text: a function name that is not UTF-8 made the JSON dump throw
// (type_error 316), i.e. `divbench sass` ended with exit 1 instead of writing its document. The one
// JSON text (json_text) replaces such bytes with U+FFFD.
TEST(ParseText, FunctionNamesThatAreNotUtf8StillGiveADocument) {
  const std::string listing = "\t.section\t.text.k\xff\xfe,\"ax\",@progbits\n        /*0000*/  EXIT ;\n";
  const auto fns = parse_nvdisasm_text(listing, 90);
  ASSERT_EQ(fns.size(), 1u);
  Cubin c;
  c.path = c.source = "x.cubin";
  c.sm = 90;
  c.functions = fns;
  const auto a = analyze(c);
  std::string text;
  ASSERT_NO_THROW(text = json_text(to_document({a}, "", "test")));
  EXPECT_NE(text.find("k\xef\xbf\xbd\xef\xbf\xbd"), std::string::npos);  // two U+FFFD
}
