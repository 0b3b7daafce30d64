// The executable's cubins disassembled before the program loads them (attribute/early_cubins.hpp), on
// a real single-architecture executable (divbench_diff_base) with a stand-in disassembler: only the
// cubins of the chosen architecture start, a saved module takes one only when its bytes are the same
// (not the size alone), at most once, and a program that is not an executable starts nothing.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "divbench/attribute/early_cubins.hpp"
#include "divbench/core/process.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace {

namespace fs = std::filesystem;
using namespace divbench;
using attribute::EarlyCubins;

#ifndef DIVBENCH_EARLY_TEST_EXE
#define DIVBENCH_EARLY_TEST_EXE ""
#endif

class EarlyCubinsTest : public ::testing::Test {
 protected:
  TempDir dir;
  std::string cuobjdump;
  std::atomic<int> calls{0};
  void SetUp() override {
    const bool required = std::getenv("DIVBENCH_REQUIRE_NVDISASM") && std::string(std::getenv("DIVBENCH_REQUIRE_NVDISASM")) == "1";
    if (std::string(DIVBENCH_EARLY_TEST_EXE).empty()) GTEST_SKIP() << "no single-architecture test executable in this build";
    try {
      cuobjdump = sass::find_cuobjdump();
    } catch (const std::exception& e) {
      if (required) FAIL() << e.what();
      GTEST_SKIP() << e.what();
    }
  }
  EarlyCubins::Disassemble fake() {
    return [this](const std::string& label, const std::string& path) {
      ++calls;
      sass::Cubin c;
      c.path = path;
      c.source = label;
      return c;
    };
  }
  std::string copy_of(const std::string& from, const std::string& name, bool flip_last_byte = false) {
    std::ifstream in(from, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (flip_last_byte) bytes.back() = static_cast<char>(bytes.back() ^ 1);
    const std::string to = dir.path() + "/" + name;
    std::ofstream(to, std::ios::binary) << bytes;
    return to;
  }
};

TEST_F(EarlyCubinsTest, StartsTheExecutablesArchitectureAndMatchesByBytes) {
  const std::string extracted = dir.path() + "/x";
  EarlyCubins early(DIVBENCH_EARLY_TEST_EXE, cuobjdump, extracted, 64u << 20, fake());
  const json s = early.summary();
  ASSERT_GE(s["cubins"].get<int>(), 1) << s.dump();
  ASSERT_GE(s["started"].size(), 1u) << s.dump();
  EXPECT_FALSE(s.contains("why")) << s.dump();
  const std::string file = extracted + "/" + s["started"][0]["file"].get<std::string>();
  EXPECT_EQ(s["device_sm"], sass::inspect_file(file).sm);
  // A different cubin of the same size: no match.
  EXPECT_FALSE(early.take(copy_of(file, "other.cubin", true)));
  // The same bytes under another name (where the injection library saves it): the disassembly begun.
  const auto m = early.take(copy_of(file, "1234.cubin"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->label, "executable:" + s["started"][0]["file"].get<std::string>());
  EXPECT_EQ(m->cubin.get().path, file);
  // Once only.
  EXPECT_FALSE(early.take(copy_of(file, "5678.cubin")));
  EXPECT_TRUE(early.summary()["started"][0]["matched"].get<bool>());
  EXPECT_EQ(calls.load(), static_cast<int>(s["started"].size()));
}

TEST_F(EarlyCubinsTest, AnotherArchitectureStartsNothing) {
  EarlyCubins early(DIVBENCH_EARLY_TEST_EXE, cuobjdump, dir.path() + "/x", 64u << 20, fake(), 1);
  const json s = early.summary();
  EXPECT_EQ(s["started"].size(), 0u);
  EXPECT_NE(s.value("why", "").find("sm_1 "), std::string::npos) << s.dump();
  EXPECT_EQ(calls.load(), 0);
}

TEST_F(EarlyCubinsTest, TooLargeStartsNothing) {
  EarlyCubins early(DIVBENCH_EARLY_TEST_EXE, cuobjdump, dir.path() + "/x", 16, fake());
  EXPECT_EQ(early.summary()["started"].size(), 0u);
  EXPECT_EQ(calls.load(), 0);
}

TEST_F(EarlyCubinsTest, AScriptIsNotHelped) {
  const std::string script = dir.path() + "/prog.sh";
  std::ofstream(script) << "#!/bin/sh\nexit 0\n";
  ::chmod(script.c_str(), 0755);
  EarlyCubins early(script, cuobjdump, dir.path() + "/x", 64u << 20, fake());
  const json s = early.summary();
  EXPECT_EQ(s["started"].size(), 0u);
  EXPECT_NE(s.value("why", "").find("not an ELF file"), std::string::npos) << s.dump();
  EXPECT_FALSE(early.take(script, 0.0));
  EXPECT_EQ(calls.load(), 0);
}

}  // namespace
