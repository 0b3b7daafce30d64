// The loop-cost model on synthetic loops (the H200's sm_90 listings of fma_chain and sfu, by their
// control words): the schedule, what is not predicted, the fit recovering known constants, the
// cost-result plumbing, and the predicted-slope documents and their comparison.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/core/process.hpp"
#include "divbench/model/kernels_inputs.hpp"
#include "divbench/model/loop_cost.hpp"
#include "divbench/model/slope_prediction.hpp"

using namespace divbench;
using namespace divbench::sass;
using namespace divbench::model;

namespace {

struct Ins {
  const char* base;
  int stall;
  int wb = 7;
  int wait = 0;
  bool jump = false;
};

LoopFacts loop(const std::vector<Ins>& v) {
  LoopFacts l;
  l.id = 0;
  l.single_path = true;
  std::uint64_t off = 0x100;
  for (const auto& i : v) {
    LoopInstruction x;
    x.offset = off;
    off += 16;
    x.base = i.base;
    x.text = i.base;
    ControlWord w;
    w.stall = i.stall;
    w.write_barrier = i.wb;
    w.wait_mask = i.wait;
    x.control = w;
    x.jump = i.jump;
    l.instructions.push_back(x);
    if (i.jump) ++l.taken_branches;
  }
  l.header = 0x100;
  l.blocks = {0x100};
  l.latches = {0x100};
  return l;
}

// sm_90, nvcc 13.0: kway_kernel<FmaChain> and kway_kernel<Sfu> work loops (stall, scoreboards).
LoopFacts fma_chain() {
  return loop({{"VIADD", 2}, {"FFMA", 3}, {"ISETP", 1}, {"FFMA", 4}, {"FFMA", 4}, {"FFMA", 4}, {"BRA", 5, 7, 0, true}});
}
LoopFacts int_alu() {
  return loop({{"IMAD", 5}, {"SHF", 4}, {"LOP3", 4}, {"SHF", 5}, {"IMAD", 2}, {"VIADD", 5}, {"ISETP", 13},
               {"BRA", 5, 7, 0, true}});
}
LoopFacts sfu() {
  return loop({{"FMUL", 1}, {"VIADD", 3}, {"MUFU", 2, 0}, {"ISETP", 1}, {"FFMA", 4, 7, 1}, {"FMUL", 4},
               {"MUFU", 2, 0}, {"FFMA", 2, 7, 1}, {"BRA", 5, 7, 0, true}});
}
LoopFacts mem() {
  return loop({{"LOP3", 5}, {"IMAD", 6}, {"LDG", 1, 2}, {"VIADD", 5}, {"ISETP", 1}, {"FFMA", 4, 7, 4}, {"IMAD", 4},
               {"VIADD", 4}, {"BRA", 5, 7, 0, true}});
}

CostConstants constants(double B, std::optional<double> W) {
  CostConstants c;
  c.sm = 90;
  c.taken_branch = B;
  c.variable_latency = W;
  return c;
}

}  // namespace

TEST(LoopCost, StallsPlusTakenBranch) {
  EXPECT_DOUBLE_EQ(simulate_period(fma_chain(), 5, 17, 0), 28.0);  // 23 + B
  EXPECT_DOUBLE_EQ(simulate_period(int_alu(), 5, 17, 0), 48.0);    // 43 + B
  const auto p = predict_loop_cost(fma_chain(), constants(5, 17));
  EXPECT_EQ(p.status, "predicted");
  EXPECT_EQ(p.a, 28.0);
  EXPECT_EQ(p.stall_sum, 23);
  EXPECT_EQ(p.variable_latency_waits, 0);
}

TEST(LoopCost, ScoreboardWaitsAddWhatTheStallsDoNotCover) {
  // MUFU -> FFMA is 3 and 2 cycles of stalls apart: each wait adds W - 3 and W - 2.
  EXPECT_DOUBLE_EQ(simulate_period(sfu(), 5, 17, 0), 24 + 5 + (17 - 3) + (17 - 2));
  EXPECT_DOUBLE_EQ(simulate_period(sfu(), 5, 2, 0), 29.0);  // covered by the stalls: no extra
  const auto p = predict_loop_cost(sfu(), constants(5, 17));
  EXPECT_EQ(p.variable_latency_waits, 2);
  EXPECT_EQ(p.a, 58.0);
}

TEST(LoopCost, WaitAcrossTheBackEdge) {
  // The producer is the loop's last instruction before the branch; its consumer opens the next
  // iteration: 5 (BRA) + B cycles apart.
  const LoopFacts l = loop({{"FFMA", 1, 7, 1}, {"IADD3", 2}, {"MUFU", 1, 0}, {"BRA", 5, 7, 0, true}});
  EXPECT_DOUBLE_EQ(simulate_period(l, 4, 30, 0), 1 + 2 + 30);  // MUFU issue to next MUFU: 30 + 1 + 2
  EXPECT_DOUBLE_EQ(simulate_period(l, 4, 5, 0), 13.0);         // 9 + B, the wait covered
}

TEST(LoopCost, WhatIsNotPredictedIsSaid) {
  const auto m = predict_loop_cost(mem(), constants(5, 17));
  EXPECT_FALSE(m.a);
  EXPECT_EQ(m.memory_waits, 1);
  ASSERT_TRUE(m.lower_bound);
  EXPECT_EQ(*m.lower_bound, 35 + 5);  // issue-bound: the load's latency taken as zero
  EXPECT_NE(m.status.find("lower bound"), std::string::npos);
  const auto w = predict_loop_cost(sfu(), constants(5, std::nullopt));
  EXPECT_FALSE(w.a);
  EXPECT_NE(w.status.find("W is not fitted"), std::string::npos);
  LoopFacts branchy = fma_chain();
  branchy.single_path = false;
  EXPECT_NE(predict_loop_cost(branchy, constants(5, 17)).status.find("more than one path"), std::string::npos);
  LoopFacts bare = fma_chain();
  bare.instructions[2].control.reset();
  EXPECT_NE(predict_loop_cost(bare, constants(5, 17)).status.find("no decoded control words"), std::string::npos);
  EXPECT_FALSE(predict_loop_cost(fma_chain(), CostConstants{}).a);
  EXPECT_TRUE(is_memory_access("LDG"));
  EXPECT_TRUE(is_memory_access("STS"));
  EXPECT_TRUE(is_memory_access("RED"));
  EXPECT_FALSE(is_memory_access("REDUX"));
  EXPECT_FALSE(is_memory_access("MUFU"));
}

TEST(LoopCost, FitRecoversKnownConstants) {
  // "Measured" a made with B = 4.5, W = 20: the fit finds them; leave-one-out predicts the FMA
  // bodies from the rest; mem_divergent is not fitted (memory wait).
  const double B = 4.5, W = 20;
  std::vector<MeasuredLoop> m{{"fma_chain", simulate_period(fma_chain(), B, W, 0), fma_chain()},
                              {"int_alu", simulate_period(int_alu(), B, W, 0), int_alu()},
                              {"sfu", simulate_period(sfu(), B, W, 0), sfu()},
                              {"mem_divergent", 300, mem()}};
  const CostFit f = fit_constants(m, 90, json{{"measured", "synthetic"}});
  ASSERT_TRUE(f.constants.taken_branch && f.constants.variable_latency);
  EXPECT_NEAR(*f.constants.taken_branch, B, 0.011);
  EXPECT_NEAR(*f.constants.variable_latency, W, 0.011);
  EXPECT_EQ(f.constants.source["bodies_fitted"], json::array({"fma_chain", "int_alu", "sfu"}));
  ASSERT_EQ(f.bodies.size(), 4u);
  EXPECT_TRUE(f.bodies[0].used);
  EXPECT_NEAR(*f.bodies[0].loo.a, m[0].a, 0.05);  // B from int_alu and sfu
  EXPECT_FALSE(f.bodies[2].loo.a);                // without sfu, nothing fixes W
  EXPECT_FALSE(f.bodies[3].used);
  EXPECT_TRUE(f.bodies[3].fitted.lower_bound);
  const json j = to_json(f);
  EXPECT_EQ(j["schema"], kLoopCostSchema);
  const CostConstants back = constants_from_json(j, "fit");
  EXPECT_EQ(back.taken_branch, f.constants.taken_branch);
  EXPECT_EQ(back.variable_latency, f.constants.variable_latency);
  EXPECT_THROW(constants_from_json(json{{"schema", "x"}}, "bad"), UsageError);
  EXPECT_NE(fit_summary(f).find("sfu"), std::string::npos);
}

// The json library is built with JSON_DIAGNOSTICS (cmake/Dependencies.cmake): a wrong type or a missing
// key deep in an input is refused naming its key path, so the user knows which value to fix.
TEST(LoopCost, MalformedConstantsNameTheKeyPath) {
  const auto message = [](const std::string& text) {
    try {
      constants_from_json(json::parse(text), "c.json");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = R"({"schema": "divbench.loop_cost/1", "sm": 90, "taken_branch_cycles": 5, )";
  EXPECT_NE(message(head + R"("variable_latency_cycles": 17, "source": {}, "placement_band_cycles": {"below": "wide", "above": 1}})")
                .find("(/placement_band_cycles/below) type must be number"),
            std::string::npos);
  EXPECT_NE(message(head + R"("variable_latency_cycles": 17, "source": {}, "placement_band_cycles": {"below": 1}})")
                .find("(/placement_band_cycles) key 'above' not found"),
            std::string::npos);
  EXPECT_NE(message(head + R"("variable_latency_cycles": [17], "source": {}})").find("(/variable_latency_cycles)"),
            std::string::npos);
}

TEST(LoopCost, ManyFilesOfABodyFitAsOneAndStayLinear) {
  // kernels fit --kway with thousands of results: the files of one body are one group (the
  // objective costs one simulation per body) and leave-one-out leaves a whole body out, once per body.
  // 3,000 files took minutes when every file was fitted and left out on its own.
  const double B = 4.5, W = 20;
  const double a_fma = simulate_period(fma_chain(), B, W, 0), a_int = simulate_period(int_alu(), B, W, 0),
               a_sfu = simulate_period(sfu(), B, W, 0);
  std::vector<MeasuredLoop> once{{"fma_chain", a_fma, fma_chain()}, {"int_alu", a_int, int_alu()}, {"sfu", a_sfu, sfu()}};
  std::vector<MeasuredLoop> many;
  for (int i = 0; i < 1000; ++i)
    for (const auto& m : once) many.push_back(m);
  const CostFit f1 = fit_constants(once, 90, json::object()), fn = fit_constants(many, 90, json::object());
  ASSERT_TRUE(fn.constants.taken_branch && fn.constants.variable_latency);
  EXPECT_NEAR(*fn.constants.taken_branch, *f1.constants.taken_branch, 0.011);
  EXPECT_NEAR(*fn.constants.variable_latency, *f1.constants.variable_latency, 0.011);
  ASSERT_EQ(fn.bodies.size(), 3000u);
  EXPECT_NEAR(*fn.bodies[2999 - 2].loo.a, *f1.bodies[0].loo.a, 0.05);  // fma_chain without any fma_chain file
  EXPECT_FALSE(fn.bodies[2999].loo.a);                                  // without any sfu file, nothing fixes W
}

TEST(LoopCost, WIsNotFittedWithoutABodyThatNeedsIt) {
  std::vector<MeasuredLoop> m{{"fma_chain", 28, fma_chain()}, {"int_alu", 48, int_alu()}, {"sfu", 0, sfu()}};
  const CostFit f = fit_constants(m, 90, json::object());
  EXPECT_NEAR(*f.constants.taken_branch, 5.0, 1e-9);
  EXPECT_FALSE(f.constants.variable_latency);
  EXPECT_FALSE(f.bodies[2].fitted.a);
}

namespace {

json function_with_loop(const std::string& name, const LoopFacts& l) {
  return json{{"name", name}, {"work_loop", 0}, {"loops", json::array({to_json(l)})}};
}

json facts(int sm) {
  return json{{"schema", kKernelFactsSchema},
              {"provenance", json{{"git", "abc"}, {"nvdisasm_version", "release 13.5"}}},
              {"cubins", json::array({json{{"sm", sm},
                                           {"ptxas", "release 13.0"},
                                           {"functions", json::array({function_with_loop("kway_kernelI8FmaChainE", fma_chain()),
                                                                      function_with_loop("kway_kernelI6IntAluE", int_alu()),
                                                                      function_with_loop("kway_kernelI3SfuE", sfu()),
                                                                      function_with_loop("kway_kernelI12MemDivergentE", mem())})}}})}};
}

}  // namespace

TEST(LoopCost, BodyNeedlesAndWorkLoops) {
  EXPECT_EQ(kway_body_needles("mem_divergent"), (std::vector<std::string>{"kway_kernel", "12MemDivergentE"}));
  EXPECT_EQ(kway_body_needles("sfu"), (std::vector<std::string>{"kway_kernel", "3SfuE"}));
  EXPECT_EQ(body_work_loops(facts(90), 90, "sfu").size(), 1u);
  EXPECT_THROW(body_work_loops(facts(90), 90, "fma_indep"), UsageError);
  EXPECT_THROW(body_work_loops(facts(90), 80, "sfu"), UsageError);
}

TEST(LoopCost, CostResultFit) {
  const json cost{{"device", json{{"name", "test GPU"}, {"cc", "9.0"}}},
                  {"git", "def"},
                  {"summary", json{{"bodies", json::array({json{{"body", "fma_chain"}, {"a", 28.0}},
                                                           json{{"body", "int_alu"}, {"a", 48.0}},
                                                           json{{"body", "sfu"}, {"a", 58.0}},
                                                           json{{"body", "mem_divergent"}, {"a", 312.0}}})}}}};
  const CostFit f = fit_from_cost_result(cost, "cost.json", facts(90), "facts.json");
  EXPECT_EQ(f.constants.sm, 90);
  EXPECT_NEAR(*f.constants.taken_branch, 5, 1e-9);
  EXPECT_NEAR(*f.constants.variable_latency, 17, 1e-9);
  EXPECT_EQ(f.constants.source["measured"], "cost.json");
  EXPECT_EQ(f.constants.source["measured_git"], "def");
  EXPECT_EQ(f.bodies[0].fitted.a, 28.0);
  EXPECT_EQ(f.bodies[2].fitted.a, 58.0);
  EXPECT_FALSE(f.bodies[3].fitted.a);
  EXPECT_EQ(f.bodies[3].fitted.lower_bound, 40.0);
  json bad = cost;
  bad["summary"]["bodies"][0]["a"] = -1;
  EXPECT_THROW(fit_from_cost_result(bad, "bad.json", facts(90), "facts.json"), UsageError);
  EXPECT_THROW(fit_from_cost_result(json{{"device", json{{"cc", "9.0"}}}}, "x.json", facts(90), "f"), UsageError);
}

TEST(LoopCost, CostResultFitRecordsThePlacementBand) {
  // fma_chain measured 28 at placement 0 and 30 at placement 1 (the same loop): the band is 0 below,
  // 2 above; a body not linear in n (a null) is left out of the fit.
  json cost{{"device", json{{"name", "test GPU"}, {"cc", "9.0"}}},
            {"summary", json{{"bodies", json::array({json{{"body", "fma_chain"}, {"a", 28.0},
                                                          {"placements", json::array({json{{"placement", 0}, {"a", 28.0}},
                                                                                      json{{"placement", 1}, {"a", 30.0}}})}},
                                                     json{{"body", "int_alu"}, {"a", 48.0},
                                                          {"placements", json::array({json{{"placement", 0}, {"a", 47.5}}})}},
                                                     json{{"body", "mem_divergent"}, {"a", nullptr},
                                                          {"linear_in_n", false}}})}}}};
  json two = facts(90);
  two["cubins"][0]["functions"].push_back(function_with_loop("kway_kernelI8FmaChainELi1E", fma_chain()));
  const CostFit f = fit_from_cost_result(cost, "cost.json", two, "facts.json");
  ASSERT_TRUE(f.constants.band_below && f.constants.band_above);
  EXPECT_NEAR(*f.constants.band_above, 2.0, 0.05);
  EXPECT_NEAR(*f.constants.band_below, 0.5, 0.05);  // int_alu 47.5 against its prediction of 48
  EXPECT_EQ(f.bodies.size(), 2u);                     // mem_divergent not linear: not measured
  const CostConstants back = constants_from_json(to_json(f), "c.json");
  EXPECT_EQ(back.band_above, f.constants.band_above);
  CostPrediction p;
  p.a = 28.0;
  // The excess (placement 1) is located by its loop's start within the fetch block; a loop starting
  // before that offset gets no room above.
  const int offset = static_cast<int>(f.constants.source["placement_residuals"][1]["fetch_block_offset"].get<int>());
  ASSERT_TRUE(back.excess_from_offset.has_value());
  EXPECT_EQ(*back.excess_from_offset, offset / 16 * 16);
  const auto iv = prediction_interval(p, back, offset);
  EXPECT_NEAR(iv->first, 28.0 - *back.band_below, 1e-12);
  EXPECT_NEAR(iv->second, 28.0 + *back.band_above, 1e-12);
  if (*back.excess_from_offset >= 16) {
    const auto early = prediction_interval(p, back, *back.excess_from_offset - 16);
    EXPECT_NEAR(early->second, 28.0, 1e-12);
  }
  // A residual within 0.01 of a whole cycle is the whole cycle (the timer's noise); the old files
  // without excess_from_offset keep the band everywhere.
  CostConstants old = back;
  old.excess_from_offset.reset();
  EXPECT_NEAR(prediction_interval(p, old, 0)->second, 28.0 + *back.band_above, 1e-12);
}

TEST(LoopCost, PlacementBandIsInWholeCyclesAndLocatedByAddress) {
  // fma_chain at two placements whose loops start 16 bytes apart: 28.00006 (noise) and 29.99994.
  json cost{{"device", json{{"name", "test GPU"}, {"cc", "9.0"}}},
            {"summary", json{{"bodies", json::array({json{{"body", "fma_chain"}, {"a", 28.0},
                                                          {"placements", json::array({json{{"placement", 0}, {"a", 28.00006}},
                                                                                      json{{"placement", 1}, {"a", 29.99994}}})}}})}}}};
  json two = facts(90);
  json moved = function_with_loop("kway_kernelI8FmaChainELi1E", fma_chain());
  two["cubins"][0]["functions"].push_back(moved);
  const CostFit f = fit_from_cost_result(cost, "cost.json", two, "facts.json");
  ASSERT_TRUE(f.constants.band_below && f.constants.band_above);
  EXPECT_EQ(*f.constants.band_below, 0.0);
  EXPECT_EQ(*f.constants.band_above, 2.0);
}

TEST(LoopCost, ValidationPredictsLoopsTheFitNeverSaw) {
  json val = facts(90);
  val["cubins"][0]["functions"].push_back(function_with_loop("loop_kernelINS0_5ChainELi0EE", fma_chain()));
  val["cubins"][0]["functions"].push_back(function_with_loop("loop_kernelINS0_5ChainELi1EE", fma_chain()));
  val["cubins"][0]["functions"].push_back(function_with_loop("loop_kernelINS0_3IntELi0EE", int_alu()));
  const json loops{{"experiment", "loops"},
                   {"device", json{{"cc", "9.0"}}},
                   {"git", "xyz"},
                   {"summary", json{{"loops", json::array({json{{"body", "chain"}, {"placement", 0}, {"a", 28.0}},
                                                           json{{"body", "chain"}, {"placement", 1}, {"a", 31.0}},
                                                           json{{"body", "int"}, {"placement", 0}, {"a", 50.0}}})}}}};
  auto needle = [](const std::string& body, int placement) {
    return std::string(body == "chain" ? "5Chain" : "3Int") + "ELi" + std::to_string(placement) + "EE";
  };
  CostConstants c = constants(5, 17);
  c.band_below = 0.0;
  c.band_above = 2.0;
  const json v = validate_loops(loops, "loops.json", val, c, needle);
  ASSERT_EQ(v["validation"].size(), 3u);
  // No excess_from_offset: every loop is in the excess region; chain placement 1 paid 3 cycles.
  EXPECT_EQ(v["excess_region_points"].get<int>(), 3);
  EXPECT_EQ(v["placement_excess_points"].get<int>(), 1);
  EXPECT_EQ(v["placement_excess_in_region"].get<int>(), 1);
  EXPECT_NEAR(v["validation"][0]["predicted"].get<double>(), 28.0, 1e-9);
  EXPECT_TRUE(v["validation"][0]["in_interval"].get<bool>());
  EXPECT_NEAR(v["validation"][1]["rel_err"].get<double>(), 28.0 / 31.0 - 1, 1e-9);
  EXPECT_FALSE(v["validation"][1]["in_interval"].get<bool>());  // 31 > 28 + 2
  EXPECT_NEAR(v["validation"][2]["rel_err"].get<double>(), 48.0 / 50.0 - 1, 1e-9);
  EXPECT_NEAR(v["oos_max_abs_err"].get<double>(), 3.0 / 31.0, 1e-9);
  EXPECT_NEAR(v["oos_median_abs_err"].get<double>(), 2.0 / 50.0, 1e-9);
  EXPECT_EQ(v["oos_within_3pct"].get<int>(), 1);
  EXPECT_EQ(v["oos_in_interval"].get<int>(), 2);  // int: 50 is at the top of [48, 48 + 2]
  EXPECT_EQ(v["oos_goal_points"].get<int>(), 2);  // chain 1 is 9.7% off and outside its interval
  EXPECT_FALSE(v["oos_goal_met"].get<bool>());
  EXPECT_NEAR(v["oos_max_outside_interval_rel"].get<double>(), 1.0 / 30.0, 1e-9);  // chain 1: 31 over [28, 30]
  EXPECT_EQ(v["validation_source"]["measured_git"], "xyz");
  json missing = loops;
  missing["summary"]["loops"][0]["placement"] = 5;  // no such kernel in the facts
  EXPECT_THROW(validate_loops(missing, "loops.json", val, c, needle), UsageError);
  EXPECT_THROW(validate_loops(json{{"experiment", "cost"}}, "cost.json", val, c, needle), UsageError);
}

TEST(LoopCost, PredictLoopsOfMatchingFunctions) {
  CostConstants c = constants(5, 17);
  c.band_below = 0.5;
  c.band_above = 2.0;
  const json out = predict_loops(facts(90), "FmaChain|MemDiv", c);
  ASSERT_EQ(out["loops"].size(), 2u);
  EXPECT_EQ(out["loops"][0]["instructions"], 7);
  EXPECT_NEAR(out["loops"][0]["a_predicted"].get<double>(), 28.0, 1e-9);
  EXPECT_NEAR(out["loops"][0]["a_min"].get<double>(), 27.5, 1e-9);
  EXPECT_NEAR(out["loops"][0]["a_max"].get<double>(), 30.0, 1e-9);
  EXPECT_TRUE(out["loops"][1]["a_predicted"].is_null());  // waits on memory: a lower bound only
  EXPECT_NEAR(out["loops"][1]["a_lower_bound"].get<double>(), 40.0, 1e-9);
  EXPECT_THROW(predict_loops(facts(90), "nothing_matches", c), UsageError);
  EXPECT_THROW(predict_loops(facts(90), "(", c), UsageError);
}

TEST(SlopePrediction, DocumentsPerArchitectureAndComparison) {
  const auto docs = predict_slopes({facts(80)}, {"facts.json"}, constants(5, 17), "constants.json", 10000);
  ASSERT_EQ(docs.size(), 1u);
  const json& d = docs[0].second;
  EXPECT_EQ(docs[0].first, "sm_80");
  EXPECT_EQ(d["schema"], kPredictedSchema);
  EXPECT_EQ(d["bodies"][0]["body"], "fma_chain");
  EXPECT_EQ(d["bodies"][0]["a"], 28.0);
  EXPECT_EQ(d["bodies"][0]["s"], 280000.0);
  EXPECT_TRUE(d["bodies"][0]["b"].is_null());
  EXPECT_EQ(d["s"], 280000.0);
  EXPECT_NE(d["model"]["constants_here"].get<std::string>().find("assumed"), std::string::npos);
  EXPECT_NE(d["bodies"][1]["a_status"].get<std::string>().find("not predicted"), std::string::npos);  // fma_indep absent
  EXPECT_TRUE(d["bodies"][4]["a"].is_null());  // mem_divergent: lower bound only
  EXPECT_EQ(d["bodies"][4]["a_lower_bound"], 40.0);
  EXPECT_NE(prediction_summary(d).find("sfu a=58.00"), std::string::npos);
  json again = predict_slopes({facts(80)}, {"elsewhere.json"}, constants(5, 17), "c.json", 10000)[0].second;
  EXPECT_TRUE(compare_predictions(d, again).empty());  // only "run" differs
  again["bodies"][0]["a"] = 29.0;
  const auto diff = compare_predictions(d, again);
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_EQ(diff[0], "bodies.0.a: committed 28.0, regenerated 29.0");
  EXPECT_THROW(predict_slopes({json{{"schema", "x"}}}, {"x"}, constants(5, 17), "c", 1), UsageError);
}

TEST(LoopCost, ConstantsAreReadAtRunTimeFromTheCommittedFileOrTheOneNamed) {
  const std::string src = DIVBENCH_SOURCE_DIR, committed = src + "/" + kCommittedConstantsFile;
  const json file = json::parse(std::ifstream(committed));
  // The default, found from a binary in a build directory of the source tree (walking up to the
  // folder that holds results/h200/loop_cost.json), and read as it is now, not as it was at configure.
  divbench::TempDir tmp;
  std::filesystem::create_directories(tmp.path() + "/build/bin");
  std::filesystem::create_directories(tmp.path() + "/results/h200");
  const std::string copied = tmp.path() + "/" + kCommittedConstantsFile;
  std::filesystem::copy_file(committed, copied);
  EXPECT_EQ(default_constants_path(tmp.path() + "/build/bin"), copied);
  const auto c = load_constants(default_constants_path(tmp.path() + "/build/bin"));
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->file, copied);
  EXPECT_EQ(c->constants.sm, file["sm"].get<int>());
  EXPECT_EQ(c->constants.taken_branch, file["taken_branch_cycles"].get<double>());
  EXPECT_EQ(c->constants.source, file["source"]);
  // loop_cost.json next to the binary (an install) comes first; a file the user names is read as named.
  json other = file;
  other["taken_branch_cycles"] = 6.5;
  write_json_atomic(tmp.path() + "/build/bin/loop_cost.json", other);
  EXPECT_EQ(default_constants_path(tmp.path() + "/build/bin"), tmp.path() + "/build/bin/loop_cost.json");
  const auto named = load_constants(tmp.path() + "/build/bin/loop_cost.json");
  ASSERT_TRUE(named) << named.error();
  EXPECT_EQ(named->constants.taken_branch, 6.5);
  // Nothing to find, a missing file, a file of another format: nullopt and why.
  divbench::TempDir empty;  // no results/h200/loop_cost.json in it or above it
  EXPECT_EQ(default_constants_path(empty.path() + "/bin"), "");
  // An install (cmake --install): <prefix>/share/divbench/loop_cost.json for a binary in <prefix>/bin.
  std::filesystem::create_directories(empty.path() + "/share/divbench");
  std::filesystem::copy_file(committed, empty.path() + "/share/divbench/loop_cost.json");
  EXPECT_EQ(default_constants_path(empty.path() + "/bin"), empty.path() + "/share/divbench/loop_cost.json");
  const auto missing = load_constants(tmp.path() + "/missing.json");
  EXPECT_FALSE(missing);
  EXPECT_NE(missing.error().find("no such file"), std::string::npos) << missing.error();
  EXPECT_THROW(missing.value(), std::logic_error);
  write_json_atomic(tmp.path() + "/other.json", json{{"schema", "divbench.kernels/1"}});
  const auto other_format = load_constants(tmp.path() + "/other.json");
  EXPECT_FALSE(other_format);
  EXPECT_NE(other_format.error().find("not a divbench.loop_cost/1 document"), std::string::npos) << other_format.error();
}

TEST(SlopePrediction, OneBodyAsTheCostSweepAsksForIt) {
  const json b = predict_body(facts(90), 90, "sfu", constants(5, 17), 100);
  EXPECT_EQ(b["a"], 58.0);
  EXPECT_EQ(b["s"], 5800.0);
  EXPECT_EQ(b["functions"], 1);
  const json missing = predict_body(facts(90), 90, "fma_indep", constants(5, 17), 100);
  EXPECT_TRUE(missing["a"].is_null());
  const json m = model_json(constants(5, 17), 61);
  EXPECT_EQ(m["constants_fitted_on"], "sm_90");
  EXPECT_EQ(m["caveats"].size(), 3u);
}

// A json type error in one of several inputs names that input's option and file (as given) and keeps
// the key path; a value that does not single one out names every candidate.
TEST(KernelsInputs, JsonErrorNamesTheFileItCameFrom) {
  const json facts = json::parse(R"({"schema": "divbench.kernels/1", "cubins": [{"sm": "ninety"}]})");
  const json cost = json::parse(R"({"device": {"cc": "9.0"}, "summary": {"bodies": [{"body": 7}]}})");
  const json other = json::parse(R"({"summary": {"bodies": [{"body": 8}]}})");
  const std::vector<JsonInput> inputs{{"--facts", "dir/f.json", &facts}, {"--cost", "c.json", &cost}};
  auto message = [&](const std::vector<JsonInput>& in, const json& doc, const std::string& key, auto get) {
    try {
      with_json_inputs(in, [&] {
        get(doc, key);
        return 0;
      });
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto as_int = [](const json& d, const std::string& k) { return d["cubins"][0].at(k).get<int>(); };
  const auto body = [](const json& d, const std::string& k) { return d["summary"]["bodies"][0].at(k).get<std::string>(); };
  EXPECT_EQ(message(inputs, facts, "sm", as_int), "--facts dir/f.json: (/cubins/0/sm) type must be number, but is string");
  EXPECT_EQ(message(inputs, cost, "body", body),
            "--cost c.json: (/summary/bodies/0/body) type must be string, but is number");
  const std::vector<JsonInput> two{{"--cost", "c.json", &cost}, {"--kway", "k.json", &other}};
  EXPECT_EQ(message(two, cost, "body", body),
            "--cost c.json or --kway k.json: (/summary/bodies/0/body) type must be string, but is number");
  const auto missing = [](const json& d, const std::string& k) { return d.at("device").at(k).get<std::string>(); };
  EXPECT_EQ(message(inputs, cost, "name", missing), "--cost c.json: (/device) key 'name' not found");
  const json array = json::parse("[1, 2]");
  const auto top = [](const json& d, const std::string& k) { return d.value(k, std::string()); };
  EXPECT_EQ(message({{"--constants", "k.json", &cost}, {"--facts", "a.json", &array}}, array, "schema", top),
            "--facts a.json: cannot use value() with array");
}
