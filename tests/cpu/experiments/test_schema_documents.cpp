// divbench.result/1 documents as the current harness writes them, without a GPU, for the JSON Schema
// check of tests/python/test_schemas.py: each experiment's real parse/to_json (config), finalize
// (fit, summary), to_json(ResultRecord) (envelope, points with raw samples) and the harness block, over
// synthetic points (device "SYNTHETIC", made-up cycles: nothing here is a measurement). With
// DIVBENCH_SCHEMA_DOCS=DIR set, every document is also written to DIR/<name>.json; the Python test runs
// this binary that way and validates the files against schemas/.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "divbench/core/json_io.hpp"
#include "divbench/core/lane_group.hpp"
#include "divbench/core/result.hpp"
#include "divbench/core/run_conditions.hpp"
#include "divbench/core/side_order.hpp"
#include "divbench/cupti/region.hpp"
#include "harness/experiment.hpp"
#include "harness/gbench.hpp"

using namespace divbench;

namespace {

DeviceRecord synthetic_device() {
  DeviceRecord d;
  d.name = "SYNTHETIC GPU (tests/cpu/experiments/test_schema_documents.cpp)";
  d.cc = "9.0";
  d.cc_major = 9;
  d.sm_count = 4;
  d.sm_clock_khz = 1000000;
  d.max_threads_per_sm = 2048;
  d.driver = d.runtime = "0.0";
  return d;
}

// What run_timed_point() records for a point sampled one warp per SM: 2 launches x 4 SMs.
TimedPoint timed(double k, double cycles, int placement, json extra = json::object()) {
  TimedPoint p;
  p.k = k;
  for (int launch = 0; launch < 2; ++launch)
    for (std::uint32_t sm = 0; sm < 4; ++sm) {
      p.sample_cycles.push_back(static_cast<std::uint64_t>(cycles) + sm);
      p.sample_smid.push_back(sm);
    }
  p.cycles.n = p.sample_cycles.size();
  p.cycles.min = cycles;
  p.cycles.max = cycles + 3;
  p.cycles.median = p.cycles.mean = cycles + 1.5;
  p.cycles.stddev = 1.1;
  p.cycles.cv = p.cycles.stddev / p.cycles.mean;
  p.launches = 2;
  p.clock_mhz = p.clock_before_mhz = p.clock_after_mhz = 1000;
  p.wall_ms = 0.5;
  p.gpu_ms = 0.4;
  p.region_ms = 2 * cycles / 1e6;
  p.extra = std::move(extra);
  p.extra["verified"] = true;
  p.extra["placement"] = placement;
  if (!p.extra.contains("sampling")) p.extra["sampling"] = "warp-per-sm";
  if (p.extra["sampling"] == "warp-per-sm") {
    p.extra["sms_distinct"] = 4;
    p.extra["launches_with_shared_sm"] = 0;
  }
  // The runner's NVML readings before and after the point (idle before, nothing after).
  RunConditions before, after;
  before.available = after.available = true;
  before.sm_clock_mhz = after.sm_clock_mhz = 1000;
  before.mem_clock_mhz = after.mem_clock_mhz = 2600;
  before.temperature_c = after.temperature_c = 40;
  before.power_w = 80.5;  // after: power not readable (null)
  before.reasons = 0x1;
  after.reasons = 0x0;
  record_conditions(p.extra, before, after);
  return p;
}

// What --metrics attaches to a point (the shape of collect_points_metrics; made-up counts).
json synthetic_metrics(double k) {
  const double inst = 100 + 7000 * k, twin_inst = 100, thread = 3200 + 224000, twin_thread = 3200;
  const json values{{kMetricRatio, thread / inst}, {kMetricInst, inst}, {kMetricThreadInst, thread},
                    {kMetricPredOnRatio, (thread - 10) / inst}, {kMetricThreadInstPredOn, thread - 10},
                    {kMetricBranchUniformPct, 90.0}, {kMetricBranchTargets, 1000.0}, {kMetricBranchTargetsUniform, 900.0}};
  const json twin{{kMetricRatio, 32.0}, {kMetricInst, twin_inst}, {kMetricThreadInst, twin_thread},
                  {kMetricPredOnRatio, 31.9}, {kMetricThreadInstPredOn, twin_thread - 10},
                  {kMetricBranchUniformPct, 100.0}, {kMetricBranchTargets, 10.0}, {kMetricBranchTargetsUniform, 10.0}};
  MetricValues f, t;
  for (const auto& [n, v] : values.items()) f[n] = v.get<double>();
  for (const auto& [n, v] : twin.items()) t[n] = v.get<double>();
  return json{{"available", true}, {"values", values}, {"twin", twin}, {"region", to_json(region_efficiency(f, t))},
              {"chip", "SYNTHETIC"}, {"passes", 2}, {"profile_ms", 1.0}, {"twin_profile_ms", 1.0},
              {"session_launches", 12}, {"library", "synthetic"}, {"mode", "synthetic"}};
}

json document(const std::string& kind, const std::string& name, RunOptions o, ResultRecord r) {
  (kind == "sweep" ? o.sweep : o.probe) = name;
  const PreparedExperiment p = find_experiment(name, kind)->prepare(o);
  r.experiment = p.name;
  r.device = synthetic_device();
  r.provenance = make_provenance("synthetic document (tests/cpu/experiments/test_schema_documents.cpp)");
  r.config = p.config;
  // The points carry their coordinates as the harness stamps them (with_declared_axes): checked
  // against the experiment's declaration here, so a synthetic point that names an undeclared or
  // mistyped axis fails the test instead of reaching the schema check.
  for (const auto& pt : r.points) check_point_axes(p.name, p.axes, pt.axes);
  for (const auto& raw : r.points_extra) check_point_axes(p.name, p.axes, raw.at("axes"));
  for (auto& raw : r.points_extra) record_conditions(raw, RunConditions{}, RunConditions{});  // NVML missing
  p.finalize(r);
  add_conditions_summary(r);
  r.timing = json{{"points_wall_ms", 1.0}, {"points_region_ms", 0.9}, {"points_gpu_ms", 0.95},
                  {"timed_launches", 2 * r.points.size()}, {"wall_over_region", 1.1}, {"run_wall_s", 0.01}};
  r.timing["metrics"] = json{{"points", 6}, {"launches", 12}, {"sessions", 1}, {"sessions_s", 0.2}, {"wall_s", 0.21}};
  r.harness = benchmark_build_info();
  const json doc = to_json(r);
  if (const char* dir = std::getenv("DIVBENCH_SCHEMA_DOCS")) write_json_atomic(std::string(dir) + "/" + name + ".json", doc);
  return doc;
}

}  // namespace

TEST(SchemaDocuments, KwayAtFourPlacementsWithSamples) {
  RunOptions o;
  o.given = {"--placements"};
  o.placements = 4;
  ResultRecord r;
  for (int placement = 0; placement < 4; ++placement)
    for (int k : {1, 2, 4, 8, 16, 32}) {
      r.points.push_back(timed(k, (1000.0 + 10 * placement) * k + 50, placement));
      r.points.back().axes = {{"placement", placement}, {"k", k}};
      r.points.back().extra["metrics"] = synthetic_metrics(k);
    }
  const json doc = document("sweep", "kway", o, std::move(r));
  EXPECT_EQ(doc["summary"]["points_with_conditions"], 24);
  EXPECT_EQ(doc["points"][0]["conditions"]["reasons"], json({"gpu_idle"}));
  EXPECT_FALSE(doc["points"][0]["metrics"]["region"]["pred_on_ratio"].is_null());
  EXPECT_EQ(doc["fit"]["placements"].size(), 4u);
  EXPECT_EQ(doc["summary"]["layout_placements"], 4);
  EXPECT_EQ(doc["points"][0]["samples"]["cycles"].size(), 8u);
  EXPECT_TRUE(doc.contains("harness"));
}

TEST(SchemaDocuments, CostTwoBodiesTwoPlacements) {
  RunOptions o;
  o.given = {"--placements"};
  o.placements = 2;
  ResultRecord r;
  for (const char* body : {"fma_chain", "sfu"})
    for (int placement : {0, 4})  // --placements 2: the window's two ends
      for (std::uint32_t n : {0u, 100u, 1000u})
        for (int k : {1, 2, 4, 8})
          for (const char* region : {"divergent", "control"}) {
            const double a = body[0] == 'f' ? 28 : 40;
            const double b = (region[0] == 'd' ? 180 : 163) + placement;
            r.points.push_back(timed(k, k * (a * n + b) + 700, placement, {{"body", body}, {"iters_per_path", n}}));
            r.points.back().axes = {{"body", body}, {"placement", placement}, {"n", n}, {"k", k}, {"region", region}};
          }
  const json doc = document("sweep", "cost", o, std::move(r));
  EXPECT_NEAR(doc["summary"]["bodies"][1]["b_divergence_cycles_per_path"].get<double>(), 17, 1e-6);
  ASSERT_EQ(doc["summary"]["bodies"].size(), 2u);
  EXPECT_EQ(doc["summary"]["bodies"][0]["placements"].size(), 2u);
  EXPECT_NEAR(doc["summary"]["a_cycles_per_iter"].get<double>(), 28, 1e-6);
  EXPECT_TRUE(doc["summary"]["bodies"][0]["a_predicted"].is_null());  // no SASS model linked in this build
}

TEST(SchemaDocuments, OccupancyResidencies) {
  ResultRecord r;
  const std::vector<std::pair<int, int>> shapes{{1, 1}, {2, 1}, {4, 1}, {4, 2}};  // (warps per SM, waves)
  for (const auto& [w, waves] : shapes) {
    const json res{{"series", waves == 1 ? "resident" : "oversubscribed"}, {"warps_per_sm", w}, {"waves", waves},
                   {"total_warps", 4 * w * waves}, {"blocks", 4 * waves}, {"threads_per_block", 32 * w},
                   {"dynamic_smem", 0}, {"blocks_per_sm", 1}, {"theoretical_blocks_per_sm", 1},
                   {"theoretical_occupancy", w / 64.0}, {"sms_used", 4},
                   {"warps_run_per_sm", {{"min", w * waves}, {"median", w * waves}, {"max", w * waves}}},
                   {"every_sm_at_target", true}, {"achieved_occupancy", w / 64.0}};
    for (int k : {1, 32}) {
      const double ms = 1.0 * k * waves / 1000.0 + 0.004;  // the synthetic region (1 us per k) per wave + overhead
      TimedPoint p = timed(k, 1000.0 * k, 0,
                           {{"sampling", "grid"}, {"residency", res}, {"sm_warps", {w * waves, w * waves, w * waves, w * waves}},
                            {"kernel_ms", {{"median", ms}, {"min", ms}, {"max", ms}, {"cv", 0}}},
                            {"launch_overhead_ms", {{"median", 0.004}, {"min", 0.004}, {"max", 0.004}, {"cv", 0}}}});
      p.axes = {{"series", res["series"]}, {"warps_per_sm", w}, {"waves", waves}, {"k", k}};
      p.sample_cycles.clear();  // the occupancy sweep keeps no raw samples (config.samples_kept false)
      p.sample_smid.clear();
      r.points.push_back(std::move(p));
    }
  }
  const json doc = document("sweep", "occupancy", RunOptions{}, std::move(r));
  EXPECT_EQ(doc["summary"]["series"].size(), 4u);
  EXPECT_TRUE(doc["points"][0]["steady_state"].get<bool>());
}

TEST(SchemaDocuments, Predication) {
  RunOptions o;
  o.given = {"--placements", "--k"};
  o.placements = 2;
  o.ks = {4};
  ResultRecord r;
  const json loop{{"available", false}, {"why", "synthetic document: no kernel facts"}};
  for (int placement : {0, 4})  // --placements 2: the window's two ends
    for (std::uint32_t n : {1000u, 10000u}) {
      auto add = [&](const char* variant, int arms, double per_iter, int loops) {
        r.points.push_back(timed(arms, 500 + per_iter * n + placement, placement,
                                 {{"variant", variant}, {"arms", arms}, {"iters_per_path", n},
                                  {"loops_per_iteration", loops}, {"loop", loop}}));
        r.points.back().axes = {{"placement", placement}, {"variant", variant}, {"arms", arms}, {"n", n}};
      };
      add("single", 1, 28, 1);
      add("branchy", 2, 56, 2);
      for (int arms : {1, 2, 4}) add("predicated", arms, 27.0 * arms, 1);
    }
  const json doc = document("sweep", "predication", o, std::move(r));
  EXPECT_DOUBLE_EQ(doc["summary"]["ratio_branchy_over_single"].get<double>(), 2.0);
  EXPECT_TRUE(doc["summary"].contains("ratio_predicated_over_single_min"));
}

TEST(SchemaDocuments, SamplingModesSideBySide) {
  RunOptions o;
  o.given = {"--body", "--map", "--k"};
  o.body = "fma_chain";
  o.map = "modulo";
  o.ks = {1, 8};
  ResultRecord r;
  for (int k : {1, 8})
    for (const char* mode : {"single", "warp-per-sm"})
      r.points.push_back(timed(k, 1000.0 * k + (mode[0] == 's' ? 0 : 1), 0,
                               {{"sampling", mode}, {"body", "fma_chain"}, {"map", "modulo"}, {"iters", 10000}}));
  for (auto& p : r.points)
    p.axes = {{"body", "fma_chain"}, {"map", "modulo"}, {"k", static_cast<int>(p.k)}, {"sampling", p.extra["sampling"]}};
  const json doc = document("sweep", "sampling", o, std::move(r));
  EXPECT_EQ(doc["summary"]["pairs"].size(), 2u);
  EXPECT_TRUE(doc["summary"]["max_rel_diff_memory"].is_null());
}

TEST(SchemaDocuments, LockProbeRecordsItsLaunchCap) {
  RunOptions o;
  o.given = {"--reps"};
  o.reps = 1000;  // more than the probe's cap: the cap and the request are recorded
  ResultRecord r;
  const json run{{"lanes_served", 32}, {"completed", true}, {"cap_reached", false}};
  for (const char* form : {"release_in_branch", "release_after_loop"})
    r.points_extra.push_back(json{{"form", form}, {"launches", 1}, {"completed", true}, {"lanes_served", 32},
                                  {"cap_reached", false}, {"runs", json::array({run})}, {"axes", {{"form", form}}}});
  const json doc = document("probe", "lock", o, std::move(r));
  EXPECT_EQ(doc["config"]["reps_requested"], 1000);
  EXPECT_LT(doc["config"]["launches_cap"].get<int>(), 1000);
  EXPECT_TRUE(doc["summary"]["completed"].get<bool>());
}

// The order probe and the order fields of producer/consumer: points as plan() writes them.
json order_run(const char* first) {
  return json{{"first", first}, {"cycles_between", 700}, {"group_enter_spread", 0}, {"rest_enter_spread", 0},
              {"interleaved", false}, {"ns_between", 0}, {"first_by_globaltimer", nullptr}, {"cap_reached", false},
              {"max_spins", 0}, {"region_cycles", 1500}};
}

TEST(SchemaDocuments, OrderProbeWithItsRule) {
  ResultRecord r;
  for (int g : {1, 16})
    for (bool in_then : {true, false})
      for (const char* kernel : {"bssy", "warpsync", "bssy_backward"}) {
        const bool backward = std::string(kernel) == "bssy_backward";
        const char* form = backward ? "bssy" : kernel;
        const std::string side = in_then != backward ? "fallthrough" : "taken";
        // made up: fewer lanes first, ties to the fall-through side
        const char* first = g == 1 || side == "fallthrough" ? "group" : "rest";
        const json runs = json::array({order_run(first), order_run(first)});
        json p = side_order_fields(group_mask(g, GroupPosition::low), side, std::string(form), combine_launches(runs));
        p.update(json{{"group_size", g}, {"group_arm", in_then ? "then" : "else"}, {"intended_group_side", side},
                      {"intended_form", form}, {"order_form", kernel}, {"intended_taken_below", backward},
                      {"layout", {{"source", "synthetic"}, {"function", "order_kernel"}, {"branch", 256},
                                  {"fallthrough_arm", backward ? "else" : "then"}, {"bssy_guarded", std::string(form) == "bssy"},
                                  {"fallthrough_at", 272}, {"taken_at", backward ? 128 : 320},
                                  {"taken_below_fallthrough", backward}}},
                      {"layout_verified", true}, {"layout_matches_intent", true}, {"form_matches_intent", true},
                      {"taken_below_matches_intent", true}, {"launches", 2}, {"cap_reached", false}, {"completed", true},
                      {"runs", runs}});
        p["axes"] = json{{"form", kernel}, {"group_size", g}, {"group_position", "low"}, {"group_arm", in_then ? "then" : "else"}};
        r.points_extra.push_back(p);
      }
  const json doc = document("probe", "order", RunOptions{}, std::move(r));
  EXPECT_EQ(doc["summary"]["rule_id"], "minority_first_tie_fallthrough");
  EXPECT_EQ(doc["summary"]["ties"]["verdict"], "fallthrough");
  EXPECT_EQ(doc["points"].size(), 12u);
}

TEST(SchemaDocuments, ProducerConsumerWithTheOrderFields) {
  ResultRecord r;
  for (const auto& [variant, producers] : {std::pair<const char*, std::uint32_t>{"producer_minority", 0x1u},
                                           std::pair<const char*, std::uint32_t>{"producer_majority", 0x7fffffffu}}) {
    json run = order_run("group");
    run.update(json{{"completed", true}, {"max_consumer_spins", 0}, {"producer_entered_first", true}});
    const json runs = json::array({run});
    json p{{"variant", variant}, {"producer_in_then", true}, {"producer_first", true},
           {"layout", {{"source", "synthetic"}, {"fallthrough_arm", "then"}, {"bssy_guarded", false}}},
           {"work", 1000}, {"launches", 1}, {"completed", true}, {"cap_reached", false}, {"max_consumer_spins", 0},
           {"producer_entered_first", true}};
    p.update(side_order_fields(producers, std::string("fallthrough"), std::string("warpsync"), combine_launches(runs)));
    p["runs"] = runs;
    p["axes"] = json{{"variant", variant}, {"producer_arm", "then"}, {"work", 1000}};
    r.points_extra.push_back(p);
  }
  const json doc = document("probe", "producer_consumer", RunOptions{}, std::move(r));
  EXPECT_EQ(doc["summary"]["conclusion"]["producer_side_first"], 2);
}
