// Self-check of divbench's own timed kernels, from the kernel facts the build wrote next to the
// divbench executable (kernel_facts.json, every architecture it carries) and, where the CUDA 12
// prefix is installed, from the same kernels compiled with NVRTC 12.9 for sm_61 and sm_70
// (kernel_facts_nvrtc.json): the rules of kernel_checks.hpp, on every architecture, and the facts
// equal a fresh analysis of the executable (the file is what experiments read at run time).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "divbench/model/kernel_facts.hpp"
#include "divbench/sass/nvdisasm.hpp"
#include "kernel_checks.hpp"

using namespace divbench;
using namespace divbench::sass;
using namespace divbench::model;

namespace {

bool required() {
  const char* req = std::getenv("DIVBENCH_REQUIRE_NVDISASM");
  return req && std::string(req) == "1";
}

// Numeric entries of the CMake architecture list, comma-separated ("75,80,90", "90-real"); others
// (native, all) skipped.
std::set<int> expected_archs(const std::string& list) {
  std::set<int> out;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, ',')) {
    const auto digits = item.substr(0, item.find_first_not_of("0123456789"));
    if (!digits.empty()) out.insert(std::stoi(digits));
  }
  return out;
}

std::set<int> archs_of(const json& facts) {
  std::set<int> out;
  for (const auto& c : facts["cubins"]) out.insert(c["sm"].get<int>());
  return out;
}

void check_all(const json& facts, const std::set<int>& archs) {
  for (int sm : archs) {
    std::vector<std::string> notes;
    const auto problems = test::check_timed_kernels(facts, sm, &notes);
    for (const auto& p : problems) ADD_FAILURE() << p;
    for (const auto& n : notes) std::printf("note: %s\n", n.c_str());
    std::printf("sm_%d: %zu problem(s)\n", sm, problems.size());
  }
}

}  // namespace

TEST(SassSelfCheck, BuiltExecutableTimedKernels) {
  const std::string dir = std::filesystem::path(DIVBENCH_EXECUTABLE).parent_path().string();
  const auto facts = load_kernel_facts(dir);
  if (!facts) {
    if (required()) FAIL() << dir << "/kernel_facts.json missing (the build writes it when nvdisasm is found)";
    GTEST_SKIP() << "no kernel_facts.json next to divbench (nvdisasm not found at build time)";
  }
  const std::set<int> have = archs_of(*facts);
  for (int sm : expected_archs(DIVBENCH_CUDA_ARCHS))
    EXPECT_TRUE(have.count(sm)) << "kernel_facts.json has no cubin for sm_" << sm;
  ASSERT_FALSE(have.empty());
  check_all(*facts, have);
}

// The cubins of one architecture (the lowest: a fresh analysis of all ten takes minutes in CI).
TEST(SassSelfCheck, FactsFileEqualsAFreshAnalysis) {
  const std::string dir = std::filesystem::path(DIVBENCH_EXECUTABLE).parent_path().string();
  const auto facts = load_kernel_facts(dir);
  const std::string nd = locate_tool("nvdisasm");
  if (!facts || nd.empty()) GTEST_SKIP() << "kernel_facts.json or nvdisasm missing (the first test reports it)";
  const int sm = *archs_of(*facts).begin();
  const std::string tag = ".sm_" + std::to_string(sm) + ".cubin";
  TempDir tmp;
  std::vector<Cubin> cubins;
  for (const auto& path : extract_cubins(DIVBENCH_EXECUTABLE, find_cuobjdump(nd), tmp.path()))
    if (path.size() > tag.size() && path.compare(path.size() - tag.size(), tag.size(), tag) == 0) {
      cubins.push_back(disassemble(path, nd));
      cubins.back().source = DIVBENCH_EXECUTABLE;
    }
  ASSERT_FALSE(cubins.empty()) << "no " << tag << " in " << DIVBENCH_EXECUTABLE;
  std::vector<CubinAnalysis> analyses;
  for (const auto& c : cubins) analyses.push_back(analyze(c));
  const json fresh = kernel_facts_document(analyses, nd, "test");
  for (const auto& c : fresh["cubins"]) {
    const json* stored = nullptr;
    for (const auto& f : (*facts)["cubins"])
      if (f["cubin"] == c["cubin"]) stored = &f;
    ASSERT_NE(stored, nullptr) << "kernel_facts.json has no " << c["cubin"];
    EXPECT_EQ((*stored)["functions"], c["functions"])
        << c["cubin"] << ": kernel_facts.json is stale or the analysis is not deterministic";
  }
  std::printf("compared %zu cubin(s) of sm_%d\n", cubins.size(), sm);
}

TEST(SassSelfCheck, NvrtcPascalVoltaTimedKernels) {
#ifdef DIVBENCH_NVRTC_FACTS
  const auto facts = load_kernel_facts(std::filesystem::path(DIVBENCH_NVRTC_FACTS).parent_path().string(),
                                       std::filesystem::path(DIVBENCH_NVRTC_FACTS).filename().string());
  ASSERT_TRUE(facts) << DIVBENCH_NVRTC_FACTS << " missing or not divbench.kernels/1";
  const std::set<int> have = archs_of(*facts);
  EXPECT_EQ(have, (std::set<int>{61, 70}));
  check_all(*facts, have);
#else
  // Off by default (DIVBENCH_NVRTC_LEGACY_FACTS): the legacy preset's CUDA 11.8 build is checked instead.
  if (required() && DIVBENCH_NVRTC_WANTED) FAIL() << "the CUDA 12 prefix (scripts/study/setup-cu12.sh) was not found at configure time";
  GTEST_SKIP() << "sm_61/sm_70 not compiled with NVRTC (-DDIVBENCH_NVRTC_LEGACY_FACTS=ON; the legacy preset builds them)";
#endif
}
