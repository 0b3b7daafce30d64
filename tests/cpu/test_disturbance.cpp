// The disturbance rules (core/disturbance.hpp) on the cases shared with the Python tools
// (tests/data/quality_cases.json; tests/python/test_quality.py runs the same cases through
// scripts/divbench/quality.py), plus the C++-only parts: the built-in criterion is the committed file,
// its memory bodies are the ones body_touches_memory() names, and the result verdict.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "divbench/core/body.hpp"
#include "divbench/core/disturbance.hpp"

namespace divbench {
namespace {

json read(const std::string& rel) {
  std::ifstream f(std::string(DIVBENCH_SOURCE_DIR) + "/" + rel);
  return json::parse(f);
}

std::vector<std::string> codes(const std::vector<std::string>& reasons) {
  std::vector<std::string> out;
  for (const auto& r : reasons) out.push_back(r.substr(0, r.find(':')));
  return out;
}

std::vector<std::string> codes(const json& reasons) {
  std::vector<std::string> v;
  for (const auto& r : reasons) v.push_back(r.get<std::string>());
  return codes(v);
}

TEST(Disturbance, BuiltInCriterionIsTheCommittedFile) {
  const NoiseCriterion file = parse_noise_criterion(read("data/noise_criterion.json"));
  const NoiseCriterion& built = noise_criterion();
  EXPECT_EQ(built.factor, file.factor);
  EXPECT_EQ(built.floor_cycles, file.floor_cycles);
  ASSERT_EQ(built.classes.size(), file.classes.size());
  for (const auto& [name, lv] : file.classes) {
    ASSERT_TRUE(built.classes.count(name)) << name;
    EXPECT_EQ(built.classes.at(name).abs_cycles, lv.abs_cycles) << name;
    EXPECT_EQ(built.classes.at(name).rel, lv.rel) << name;
  }
}

TEST(Disturbance, MemoryBodiesAgreeWithTheBodies) {
  const NoiseCriterion& c = noise_criterion();
  const std::set<std::string> listed(c.memory_bodies.begin(), c.memory_bodies.end());
  for (Body b : all_bodies()) EXPECT_EQ(listed.count(body_name(b)) == 1, body_touches_memory(b)) << body_name(b);
}

TEST(Disturbance, SharedPointCases) {
  const json cases = read("tests/data/quality_cases.json");
  ASSERT_GE(cases["points"].size(), 10u);
  for (const auto& c : cases["points"]) {
    const PointVerdict v = judge_timed_point(c["point"], c["config"], noise_criterion(), noise_criterion().factor);
    EXPECT_EQ(codes(v.reasons), codes(c["expect"])) << c["name"];
    if (c.contains("expect_sms")) EXPECT_EQ(json(v.disagreeing_sms), c["expect_sms"]) << c["name"];
  }
}

TEST(Disturbance, SharedFitCases) {
  const json cases = read("tests/data/quality_cases.json");
  for (const auto& c : cases["fits"]) {
    // One point (not disturbed): the case judges the fit, not an empty result.
    const json doc{{"config", c["config"]}, {"points", json::array({json::object()})}, {"fit", c["fit"]}};
    const json q = judge_result(doc, noise_criterion());
    std::set<std::string> got;
    for (const auto& code : codes(q["reasons"])) got.insert(code);
    std::set<std::string> want;
    for (const auto& e : c["expect"]) want.insert(e.get<std::string>());
    EXPECT_EQ(got, want) << c["name"];
    if (c.contains("expect_count")) EXPECT_EQ(q["reasons"].size(), c["expect_count"].get<std::size_t>()) << c["name"];
    EXPECT_EQ(q["trustworthy"].get<bool>(), want.empty()) << c["name"];
  }
}

TEST(Disturbance, SharedResultCases) {
  const json cases = read("tests/data/quality_cases.json");
  ASSERT_GE(cases["results"].size(), 3u);
  for (const auto& c : cases["results"]) {
    const json q = judge_result(c["result"], noise_criterion());
    EXPECT_EQ(codes(q["reasons"]), codes(c["expect"])) << c["name"];
    EXPECT_EQ(q["trustworthy"].get<bool>(), c["expect"].empty()) << c["name"];
  }
}

TEST(Disturbance, VerdictIsTotalOnHostileValues) {
  // Whatever a point or a fit holds, the verdict is a verdict: no exception, and never quiet by omission.
  const NoiseCriterion& c = noise_criterion();
  for (const json& bad : {json(17), json("point"), json::array(), json(nullptr)}) {
    const PointVerdict v = judge_timed_point(bad, json::object(), c, c.factor);
    EXPECT_TRUE(v.disturbed()) << bad.dump();
  }
  json point{{"k", 1}, {"median_cycles", 1000}, {"min_cycles", 1000}, {"max_cycles", 1000}, {"sampling", "single"},
             {"conditions", {{"processes", "none"}}}};
  EXPECT_EQ(codes(judge_timed_point(point, json::object(), c, c.factor).reasons), std::vector<std::string>{"ill_typed"});
  for (const json& fit : {json("fit"), json{{"c", 1}, {"r2", "x"}}, json{{"c", 1}, {"r2", 1}, {"placements", 3}}}) {
    const json q = judge_result(json{{"points", json::array({json::object()})}, {"fit", fit}}, c);
    EXPECT_FALSE(q["trustworthy"].get<bool>()) << fit.dump();
  }
}

TEST(Disturbance, ResultCountsDisturbedPoints) {
  json doc{{"config", {{"body", "fma_chain"}}}, {"points", json::array()}};
  doc["points"].push_back(json{{"disturbed", false}, {"disturbed_reasons", json::array()}});
  doc["points"].push_back(json{{"disturbed", true}, {"disturbed_reasons", {"co_tenant: 1 other process(es) on the GPU (9)"}}});
  doc["points"].push_back(json{{"disturbed", true}, {"disturbed_reasons", {"noise: x", "co_tenant: y"}}});
  const json q = judge_result(doc, noise_criterion());
  EXPECT_FALSE(q["trustworthy"].get<bool>());
  EXPECT_EQ(q["disturbed_points"].get<int>(), 2);
  ASSERT_EQ(q["reasons"].size(), 1u);
  EXPECT_EQ(q["reasons"][0].get<std::string>(), "disturbed_points: 2 of 3 point(s) (co_tenant, noise)");
  EXPECT_EQ(q["disturbed"][0]["index"].get<int>(), 1);
}

TEST(Disturbance, FactorScalesTheAllowance) {
  const NoiseCriterion& c = noise_criterion();
  const double a4 = allowed_spread(c, "warp-per-sm/compute", 280904, 4);
  const double a8 = allowed_spread(c, "warp-per-sm/compute", 280904, 8);
  EXPECT_DOUBLE_EQ(a8, 2 * a4);
  EXPECT_LT(allowed_spread(c, "no-such/class", 1000, 4), 0);
}

TEST(Disturbance, CoTenantsFromEitherReading) {
  json p{{"conditions", {{"processes", {{"before", {{"read", true}, {"others", {5}}, {"others_count", 1}}},
                                         {"after", {{"read", true}, {"others", {5, 6}}, {"others_count", 2}}}}}}}};
  EXPECT_EQ(co_tenants(p), (std::vector<std::string>{"5", "6"}));
  json q{{"conditions", {{"processes", {{"before", {{"read", true}, {"others", json::array()}, {"others_count", 2}}}}}}}};
  EXPECT_EQ(co_tenants(q), (std::vector<std::string>{"?", "?"}));
  EXPECT_TRUE(co_tenants(json::object()).empty());
}

TEST(Disturbance, AnIdleCoTenantIsNotedNotCounted) {
  // Process 5 held a context and did nothing (NVML: 17 samples, SM at most 1%); process 6 worked.
  json p{{"conditions",
          {{"processes",
            {{"after",
              {{"read", true},
               {"others", {5, 6}},
               {"others_count", 2},
               {"activity", {{"read", true},
                             {"pids", {{"5", {{"samples", 17}, {"sm_max", 1}, {"mem_max", 0}}},
                                       {"6", {{"samples", 4}, {"sm_max", 40}, {"mem_max", 2}}}}}}}}}}}}}};
  EXPECT_EQ(listed_co_tenants(p), (std::vector<std::string>{"5", "6"}));
  EXPECT_EQ(co_tenants(p), (std::vector<std::string>{"6"}));
  EXPECT_EQ(idle_co_tenants(p), (std::vector<std::string>{"5"}));
  // With only the idle one, a quiet point is trustworthy, and the result says why it was not counted.
  p["conditions"]["processes"]["after"]["others"] = {5};
  p["conditions"]["processes"]["after"]["others_count"] = 1;
  json pt = p;
  pt["k"] = 1;
  pt["median_cycles"] = 280904;
  pt["min_cycles"] = 280890;
  pt["max_cycles"] = 280920;
  pt["sampling"] = "warp-per-sm";
  const json config{{"body", "fma_chain"}, {"sampling", "warp-per-sm"}};
  EXPECT_FALSE(judge_timed_point(pt, config, noise_criterion(), noise_criterion().factor).disturbed());
  const json q = judge_result(json{{"points", json::array({pt})}, {"config", config}}, noise_criterion());
  ASSERT_TRUE(q.contains("notes")) << q.dump();
  EXPECT_NE(q["notes"][0].get<std::string>().find("idle_co_tenant: process 5"), std::string::npos) << q["notes"];
  // Idle at the first point, seen at work (65% SM) at the second: no idle note for it.
  {
    json later = pt;
    later["conditions"]["processes"]["after"]["activity"]["pids"]["5"]["sm_max"] = 65;
    const json qa = judge_result(json{{"points", json::array({pt, later})}, {"config", config}}, noise_criterion());
    EXPECT_FALSE(qa.contains("notes")) << qa.dump();
  }
  // The same process with SM work at 2%: a co-tenant.
  pt["conditions"]["processes"]["after"]["activity"]["pids"]["5"]["sm_max"] = 2;
  EXPECT_TRUE(judge_timed_point(pt, config, noise_criterion(), noise_criterion().factor).disturbed());
  // No sample of it since divbench's first reading (the reading says when that was): idle, and the note
  // says NVML had no sample rather than quoting a maximum.
  pt["conditions"]["processes"]["after"]["activity"]["since_us"] = 1796362774438234LL;
  pt["conditions"]["processes"]["after"]["activity"]["pids"]["5"] = {{"samples", 0}, {"sm_max", 0}, {"mem_max", 0}};
  EXPECT_FALSE(judge_timed_point(pt, config, noise_criterion(), noise_criterion().factor).disturbed());
  const json q0 = judge_result(json{{"points", json::array({pt})}, {"config", config}}, noise_criterion());
  ASSERT_TRUE(q0.contains("notes")) << q0.dump();
  EXPECT_NE(q0["notes"][0].get<std::string>().find("none of the samples since divbench's first reading named it"),
            std::string::npos)
      << q0["notes"];
}

}  // namespace
}  // namespace divbench
