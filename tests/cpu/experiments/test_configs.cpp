// Every experiment's typed configuration, without a GPU: what parse() accepts and refuses, and that
// the recorded config is exactly what runs (the k_divergent bug: --all --k 1-32 recorded the first k
// while the occupancy sweep ran 32).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/core/process.hpp"
#include "harness/experiment.hpp"
#include "tests/cpu/experiments/synthetic_points.hpp"
#include "harness/runner.hpp"

using namespace divbench;
using divbench::synthetic::with;

namespace {
PreparedExperiment prepare(const std::string& kind, const std::string& name, RunOptions o) {
  const Experiment* e = find_experiment(name, kind);
  if (!e) throw std::runtime_error("no experiment " + name);
  return e->prepare(o);
}
}  // namespace

TEST(Configs, EveryRegisteredExperimentPreparesWithDefaults) {
  for (const auto& e : experiment_registry()) {
    SCOPED_TRACE(e.name);
    RunOptions o;
    (e.kind == "sweep" ? o.sweep : o.probe) = e.name;
    const PreparedExperiment p = e.prepare(o);
    EXPECT_EQ(p.name, e.name);
    EXPECT_FALSE(p.result_name.empty());
    EXPECT_TRUE(p.config.is_object());
    // Its declared axes, recorded in config.axes (bench/harness/axes.hpp; test_axes.cpp).
    ASSERT_TRUE(p.config.contains("axes"));
    const json& axes = p.config["axes"];
    ASSERT_TRUE(axes.is_array());
    ASSERT_FALSE(axes.empty());
    ASSERT_EQ(axes.size(), p.axes.size());
    std::set<std::string> names;
    for (const auto& a : axes) {
      EXPECT_TRUE(names.insert(a["name"].get<std::string>()).second) << "axis declared twice: " << a["name"];
      EXPECT_TRUE(a["type"] == "int" || a["type"] == "string" || a["type"] == "float") << a.dump();
      EXPECT_TRUE(a["values"].is_array() || a["values"].is_string()) << a.dump();
      if (a["option"].is_string())  // the option that sets it is one the experiment accepts
        EXPECT_NE(std::find(e.options.begin(), e.options.end(), a["option"].get<std::string>()), e.options.end());
    }
  }
}

TEST(Configs, OccupancyRecordsTheKItRunsUnderAll) {
  RunOptions o = with({"--k"});
  o.all = true;
  o.ks = {1, 2, 3, 32};
  const PreparedExperiment p = prepare("sweep", "occupancy", o);
  EXPECT_EQ(p.config["k_divergent"].get<int>(), 32);
  RunOptions single = with({"--k"});
  single.ks = {8};
  EXPECT_EQ(prepare("sweep", "occupancy", single).config["k_divergent"].get<int>(), 8);
}

TEST(Configs, KwayRecordsSamplingAndPlacements) {
  RunOptions o = with({"--placements", "--sampling"});
  o.placements = 4;
  o.sampling = "single";
  const json c = prepare("sweep", "k", o).config;
  EXPECT_EQ(c["sampling"], "single");
  EXPECT_EQ(c["placements"], json({0, 2, 4, 6}));  // spread over the 128-byte window
  EXPECT_EQ(c["ks"].size(), 32u);
  // Default sampling: warp-per-sm for compute bodies, single for the memory body.
  EXPECT_EQ(prepare("sweep", "k", RunOptions{}).config["sampling"], "warp-per-sm");
  RunOptions mem;
  mem.body = "mem_divergent";
  EXPECT_EQ(prepare("sweep", "k", mem).config["sampling"], "single");
}

TEST(Configs, BadInputIsAUsageError) {
  RunOptions one_k = with({"--k"});
  one_k.ks = {4};
  EXPECT_THROW(prepare("sweep", "k", one_k), UsageError);
  RunOptions too_many = with({"--placements"});
  too_many.placements = 9;
  EXPECT_THROW(prepare("sweep", "k", too_many), UsageError);
  RunOptions body;
  body.body = "nope";
  EXPECT_THROW(prepare("sweep", "k", body), UsageError);
  // Probes take no sweep options; an explicitly given default is still refused (by the one
  // accepted-options check, before any experiment parses).
  RunOptions probe_k = with({"--body"});
  probe_k.probe = "lock";
  EXPECT_THROW(prepare_experiments(probe_k), UsageError);
  RunOptions cal = with({"--k"});
  cal.ks = {3};
  EXPECT_THROW(prepare("sweep", "calibration", cal), UsageError);
}

TEST(Configs, ProbesRecordTheirLaunchCap) {
  RunOptions o = with({"--reps"});
  o.reps = 201;
  const PreparedExperiment p = prepare("probe", "lock", o);
  EXPECT_EQ(p.config["launches"].get<int>(), 5);
  EXPECT_EQ(p.config["launches_cap"].get<int>(), 5);
  EXPECT_EQ(p.config["reps_requested"].get<int>(), 201);
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("capped at 5"), std::string::npos);
  RunOptions few = with({"--reps"});
  few.reps = 2;
  const PreparedExperiment q = prepare("probe", "lock", few);
  EXPECT_EQ(q.config["launches"].get<int>(), 2);
  EXPECT_TRUE(q.notes.empty());
}

TEST(Configs, PrepareExperimentsSelects) {
  RunOptions all;
  all.all = true;
  std::size_t in_all = 0;
  for (const auto& e : experiment_registry()) in_all += e.in_all ? 1 : 0;
  EXPECT_EQ(prepare_experiments(all).size(), in_all);
  EXPECT_LT(in_all, experiment_registry().size());  // cost and sampling run alone
  RunOptions unknown;
  unknown.sweep = "nope";
  EXPECT_THROW(prepare_experiments(unknown), UsageError);
}

TEST(Configs, PlacementsSpreadOverTheWindowAndWarmupFollowsTheMode) {
  auto placements = [](int n) {
    RunOptions o = with({"--placements"});
    o.placements = n;
    return prepare("sweep", "k", o).config["placements"];
  };
  EXPECT_EQ(placements(1), json({0}));
  EXPECT_EQ(placements(2), json({0, 4}));
  EXPECT_EQ(placements(8), json({0, 1, 2, 3, 4, 5, 6, 7}));
  const json c = prepare("sweep", "k", RunOptions{}).config;
  EXPECT_EQ(c["warmup"]["warp-per-sm"].get<int>(), 1);
  EXPECT_EQ(c["warmup"]["single"].get<int>(), 3);
  RunOptions w = with({"--warmup"});
  w.warmup = 5;
  EXPECT_EQ(prepare("sweep", "k", w).config["warmup"].get<int>(), 5);
}

TEST(Configs, CostReadsTheLoopCostConstantsItIsGiven) {
  // --loop-cost names the constants of a_predicted: read when parsed (a file that is not there, or
  // not divbench.loop_cost/1, is bad input before any GPU work) and recorded in config.
  divbench::TempDir tmp;
  const std::string good = tmp.path() + "/constants.json", other = tmp.path() + "/other.json";
  write_json_atomic(good, json{{"schema", "divbench.loop_cost/1"}, {"sm", 90}, {"taken_branch_cycles", 5.0},
                               {"variable_latency_cycles", 17.0}, {"source", "synthetic"}});
  write_json_atomic(other, json{{"schema", "divbench.kernels/1"}});
  RunOptions o = with({"--loop-cost"});
  o.loop_cost = good;
  EXPECT_EQ(prepare("sweep", "cost", o).config["loop_cost"], good);
  EXPECT_TRUE(prepare("sweep", "cost", RunOptions{}).config["loop_cost"].is_null());  // the committed file
  o.loop_cost = other;
  EXPECT_THROW(prepare("sweep", "cost", o), UsageError);
  o.loop_cost = tmp.path() + "/missing.json";
  EXPECT_THROW(prepare("sweep", "cost", o), UsageError);
  RunOptions kway = with({"--loop-cost"});  // the k sweep predicts nothing: the option does not apply
  kway.sweep = "k";
  kway.loop_cost = good;
  EXPECT_THROW(prepare_experiments(kway), UsageError);
}
