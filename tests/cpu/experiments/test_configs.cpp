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
using divbench::synthetic::prepare;

TEST(Configs, EveryRegisteredExperimentPreparesWithDefaults) {
  for (const auto& e : experiment_registry()) {
    SCOPED_TRACE(e.name);
    const PreparedExperiment p = prepare(e.kind, e.name);
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
      if (a["option"].is_string())  // the option that sets it is one the experiment declares
        EXPECT_TRUE(std::any_of(e.settings.begin(), e.settings.end(),
                                [&](const SettingSpec& s) { return s.option == a["option"].get<std::string>(); }));
    }
  }
}

TEST(Configs, OccupancyRecordsTheKItRunsUnderAll) {
  CommandLine o;
  o.set("--all");
  o.set("--k", "1,2,3,32");
  std::vector<std::string> notes;
  const std::vector<PreparedExperiment> all = prepare_experiments(o, &notes);
  const auto p = std::find_if(all.begin(), all.end(), [](const PreparedExperiment& x) { return x.name == "occupancy"; });
  ASSERT_NE(p, all.end());
  EXPECT_EQ(p->config["k_divergent"].get<int>(), 32);  // its own --k (the divergent k) does not reach it under --all
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("--k does not reach occupancy") != std::string::npos;
  }));
  CommandLine single;
  single.set("--k", "8");
  EXPECT_EQ(prepare("sweep", "occupancy", single).config["k_divergent"].get<int>(), 8);
}

TEST(Configs, KwayRecordsSamplingAndPlacements) {
  CommandLine o;
  o.set("--placements", "4");
  o.set("--sampling", "single");
  const json c = prepare("sweep", "k", o).config;
  EXPECT_EQ(c["sampling"], "single");
  EXPECT_EQ(c["placements"], json({0, 2, 4, 6}));  // spread over the 128-byte window
  EXPECT_EQ(c["ks"].size(), 32u);
  // Default sampling: warp-per-sm for compute bodies, single for the memory body.
  EXPECT_EQ(prepare("sweep", "k", CommandLine{}).config["sampling"], "warp-per-sm");
  CommandLine mem;
  mem.set("--body", "mem_divergent");
  EXPECT_EQ(prepare("sweep", "k", mem).config["sampling"], "single");
}

TEST(Configs, BadInputIsAUsageError) {
  CommandLine one_k;
  one_k.set("--k", "4");
  EXPECT_THROW(prepare("sweep", "k", one_k), UsageError);
  CommandLine too_many;
  too_many.set("--placements", "9");
  EXPECT_THROW(prepare("sweep", "k", too_many), UsageError);
  CommandLine body;
  body.set("--body", "nope");
  EXPECT_THROW(prepare("sweep", "k", body), UsageError);
  // Probes take no sweep options; an explicitly given default is still refused (by the one
  // accepted-options check, before any experiment parses).
  CommandLine probe_k;
  probe_k.set("--body", "fma_chain");
  probe_k.set("--probe", "lock");
  EXPECT_THROW(prepare_experiments(probe_k), UsageError);
  CommandLine cal;
  cal.set("--k", "3");
  EXPECT_THROW(prepare("sweep", "calibration", cal), UsageError);
}

TEST(Configs, ProbesRecordTheirLaunchCap) {
  CommandLine o;
  o.set("--reps", "201");
  const PreparedExperiment p = prepare("probe", "lock", o);
  EXPECT_EQ(p.config["launches"].get<int>(), 5);
  EXPECT_EQ(p.config["launches_cap"].get<int>(), 5);
  EXPECT_EQ(p.config["reps_requested"].get<int>(), 201);
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("capped at 5"), std::string::npos);
  CommandLine few;
  few.set("--reps", "2");
  const PreparedExperiment q = prepare("probe", "lock", few);
  EXPECT_EQ(q.config["launches"].get<int>(), 2);
  EXPECT_TRUE(q.notes.empty());
}

TEST(Configs, PrepareExperimentsSelects) {
  CommandLine all;
  all.set("--all");
  std::size_t in_all = 0;
  for (const auto& e : experiment_registry()) in_all += e.in_all ? 1 : 0;
  EXPECT_EQ(prepare_experiments(all).size(), in_all);
  EXPECT_LT(in_all, experiment_registry().size());  // cost and sampling run alone
  CommandLine unknown;
  unknown.set("--sweep", "nope");
  EXPECT_THROW(prepare_experiments(unknown), UsageError);
}

TEST(Configs, PlacementsSpreadOverTheWindowAndWarmupFollowsTheMode) {
  auto placements = [](int n) {
    CommandLine o;
    o.set("--placements", std::to_string(n));
    return prepare("sweep", "k", o).config["placements"];
  };
  EXPECT_EQ(placements(1), json({0}));
  EXPECT_EQ(placements(2), json({0, 4}));
  EXPECT_EQ(placements(8), json({0, 1, 2, 3, 4, 5, 6, 7}));
  const json c = prepare("sweep", "k", CommandLine{}).config;
  EXPECT_EQ(c["warmup"]["warp-per-sm"].get<int>(), 1);
  EXPECT_EQ(c["warmup"]["single"].get<int>(), 3);
  CommandLine w;
  w.set("--warmup", "5");
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
  CommandLine o;
  o.set("--loop-cost", good);
  EXPECT_EQ(prepare("sweep", "cost", o).config["loop_cost"], good);
  EXPECT_TRUE(prepare("sweep", "cost", CommandLine{}).config["loop_cost"].is_null());  // the committed file
  o.set("--loop-cost", other);
  EXPECT_THROW(prepare("sweep", "cost", o), UsageError);
  o.set("--loop-cost", tmp.path() + "/missing.json");
  EXPECT_THROW(prepare("sweep", "cost", o), UsageError);
  CommandLine kway;  // the k sweep predicts nothing: the option does not apply
  kway.set("--sweep", "k");
  kway.set("--loop-cost", good);
  EXPECT_THROW(prepare_experiments(kway), UsageError);
}
