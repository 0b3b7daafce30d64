// Work-loop shapes read from "divbench.kernels/1" documents (synthetic ones here; the real SASS of
// the predication kernels in experiments/predication/tests/sass/test_predication_shapes.cpp): the reader, the cubin a device
// runs, and the equal-shape rule, which must pass on equal shapes and fail on each kind of difference.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "divbench/model/kernel_facts.hpp"
#include "divbench/summary/loop_shape.hpp"

using namespace divbench;

namespace {

json loop_doc(const std::vector<std::string>& bases, bool single_path = true, int taken = 1) {
  json ins = json::array();
  for (const auto& b : bases) ins.push_back(json{{"base", b}});
  return json{{"instruction_count", bases.size()}, {"stall_sum", 23}, {"taken_branches", taken},
              {"single_path", single_path}, {"instructions", ins}};
}

std::vector<std::string> chain_loop(int ffma) {
  std::vector<std::string> v{"VIADD"};
  for (int i = 0; i < ffma; ++i) v.push_back("FFMA");
  v.push_back("ISETP");
  v.push_back("BRA");
  return v;
}

json facts_with(int sm, const std::vector<std::pair<std::string, json>>& fns) {
  json functions = json::array();
  for (const auto& [name, loop] : fns) {
    json f{{"name", name}, {"loops", json::array()}, {"work_loop", nullptr}};
    if (!loop.is_null()) {
      f["loops"].push_back(json{{"instruction_count", 2}});  // an outer loop first: work_loop indexes
      f["loops"].push_back(loop);
      f["work_loop"] = 1;
    }
    functions.push_back(f);
  }
  json cubin = json::object();
  cubin["sm"] = sm;
  cubin["functions"] = functions;
  json doc = json::object();
  doc["schema"] = "divbench.kernels/1";
  doc["cubins"] = json::array({cubin});
  return doc;
}

LoopShape shape(int ffma, int other_extra = 0, bool single_path = true) {
  auto bases = chain_loop(ffma);
  for (int i = 0; i < other_extra; ++i) bases.insert(bases.begin() + 1, "FADD");
  return work_loop_shape(facts_with(90, {{"k", loop_doc(bases, single_path)}}), 90, "k");
}

}  // namespace

TEST(LoopShape, ReadsTheWorkLoop) {
  const json facts = facts_with(90, {{"_Z19pred_branchy_kernelILi3EE", loop_doc(chain_loop(4))},
                                     {"_Z18pred_select_kernelILi2ELi3EE", loop_doc(chain_loop(8))}});
  const LoopShape s = work_loop_shape(facts, 90, "pred_select_kernelILi2ELi3EE");
  EXPECT_EQ(s.instructions, 11);
  EXPECT_EQ(s.count("FFMA"), 8);
  EXPECT_EQ(s.count("MOV"), 0);
  EXPECT_EQ(s.stall_sum, 23);
  EXPECT_EQ(s.sm, 90);
  const LoopShape back = loop_shape_from_json(to_json(s));
  EXPECT_EQ(back.opcodes, s.opcodes);
  EXPECT_EQ(back.function, s.function);
  EXPECT_EQ(back.stall_sum, s.stall_sum);
}

TEST(LoopShape, SaysWhatIsMissing) {
  const json facts = facts_with(90, {{"a_kernelILi1E", loop_doc(chain_loop(4))},
                                     {"a_kernelILi2E", loop_doc(chain_loop(4))},
                                     {"no_loop", nullptr}});
  EXPECT_THROW(work_loop_shape(facts, 80, "a_kernel"), std::runtime_error);       // no sm_80 cubin
  EXPECT_THROW(work_loop_shape(facts, 90, "a_kernel"), std::runtime_error);       // two functions
  EXPECT_THROW(work_loop_shape(facts, 90, "b_kernel"), std::runtime_error);       // none
  EXPECT_THROW(work_loop_shape(facts, 90, "no_loop"), std::runtime_error);        // no work loop
  EXPECT_NO_THROW(work_loop_shape(facts, 90, "a_kernelILi2E"));
}

TEST(LoopShape, CubinTheDeviceRuns) {
  json facts = json::object();
  facts["cubins"] = json::array();
  for (int sm : {80, 86, 90, 120}) facts["cubins"].push_back(json{{"sm", sm}});
  EXPECT_EQ(cubin_sm_for_device(facts, 8, 9), 86);  // sm_89 runs the sm_86 cubin
  EXPECT_EQ(cubin_sm_for_device(facts, 9, 0), 90);
  EXPECT_EQ(cubin_sm_for_device(facts, 12, 1), 120);
  EXPECT_FALSE(cubin_sm_for_device(facts, 10, 0));  // only PTX would run
  EXPECT_FALSE(cubin_sm_for_device(facts, 7, 5));
}

TEST(LoopShape, FactsAbsentSaysWhy) {
  // A directory without kernel_facts.json (the test binary's own may hold one: the GPU bundle puts
  // the tests next to divbench and its facts), then one whose file is not a kernels document.
  const auto dir = std::filesystem::temp_directory_path() / ("divbench-facts-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto absent = model::find_kernel_facts(dir.string());
  EXPECT_FALSE(absent);
  EXPECT_NE(absent.error().find("kernel_facts.json not found"), std::string::npos) << absent.error();
  std::ofstream(dir / "kernel_facts.json") << R"({"schema": "divbench.sass/1"})";
  const auto other = model::find_kernel_facts(dir.string());
  EXPECT_FALSE(other);
  EXPECT_NE(other.error().find("is not a divbench.kernels/1 document"), std::string::npos) << other.error();
  std::filesystem::remove_all(dir);
  // An install: <prefix>/bin has none beside it, <prefix>/share/divbench/kernel_facts.json is read.
  const auto prefix = std::filesystem::temp_directory_path() / ("divbench-facts-install-" + std::to_string(::getpid()));
  std::filesystem::create_directories(prefix / "bin");
  std::filesystem::create_directories(prefix / "share" / "divbench");
  const auto none = model::find_kernel_facts((prefix / "bin").string());
  EXPECT_FALSE(none);
  EXPECT_NE(none.error().find("nor is the installed " + (prefix / "share" / "divbench" / "kernel_facts.json").string()),
            std::string::npos)
      << none.error();
  std::ofstream(prefix / "share" / "divbench" / "kernel_facts.json") << R"({"schema": "divbench.kernels/1", "cubins": []})";
  const auto installed = model::find_kernel_facts((prefix / "bin").string());
  EXPECT_TRUE(installed) << installed.error();
  std::filesystem::remove_all(prefix);
  // The running executable's facts: found, or absent with the reason.
  if (const auto& running = running_kernel_facts(); !running) EXPECT_FALSE(running.error().empty());
}

TEST(LoopShape, EnclosingLoopIsTheWorkLoopsParent) {
  json fn{{"name", "kway_x"}, {"work_loop", 1}};
  json outer = loop_doc({"ISETP", "BSSY", "BRA", "LDC", "LDC", "MATCH", "BRA"}, false, 0);
  outer["id"] = 0;
  outer["parent"] = nullptr;
  json inner = loop_doc(chain_loop(4));
  inner["id"] = 1;
  inner["parent"] = 0;
  fn["loops"] = json::array({outer, inner});
  json doc = facts_with(90, {});
  doc["cubins"][0]["functions"].push_back(fn);
  const LoopShape s = enclosing_loop_shape(doc, 90, "kway_x");
  EXPECT_EQ(s.instructions, 7);
  EXPECT_EQ(s.count("LDC"), 2);
  EXPECT_FALSE(s.single_path);
  EXPECT_EQ(work_loop_shape(doc, 90, "kway_x").count("FFMA"), 4);
  // A work loop with no enclosing loop (the predication kernels' facts_with shape has parent absent).
  doc["cubins"][0]["functions"][0]["loops"][1]["parent"] = nullptr;
  EXPECT_THROW(enclosing_loop_shape(doc, 90, "kway_x"), std::runtime_error);
}

TEST(LoopShape, EqualShapesPassAndEachDifferenceFails) {
  const LoopShape a = shape(4);
  EXPECT_TRUE(equal_shape_problems(a, shape(4), "work loop").empty());
  EXPECT_EQ(equal_shape_problems(a, shape(5), "work loop").size(), 2u);  // count and opcodes
  LoopShape b = a;
  b.stall_sum = 24;
  ASSERT_EQ(equal_shape_problems(a, b, "loop over paths").size(), 1u);
  EXPECT_NE(equal_shape_problems(a, b, "loop over paths")[0].find("stall sum 24, want 23"), std::string::npos);
  b = a;
  b.opcodes["FFMA"] = 3;
  b.opcodes["FADD"] = 1;  // same count, other opcodes
  ASSERT_EQ(equal_shape_problems(a, b, "w").size(), 1u);
  EXPECT_NE(equal_shape_problems(a, b, "w")[0].find("FADD 1/0 FFMA 3/4"), std::string::npos);
  b = a;
  b.taken_branches = 2;
  EXPECT_EQ(equal_shape_problems(a, b, "w").size(), 1u);
}
