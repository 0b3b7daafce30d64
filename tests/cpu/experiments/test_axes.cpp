// Declared axes (bench/harness/axes.hpp), without a GPU: the labels and point.axes made from one
// declaration, the typed check of a point's coordinates, config.axes (every experiment's:
// test_configs.cpp) and the one accepted-options check (an option no axis or setting of the
// selected experiments declares: exit 2).
#include <gtest/gtest.h>

#include <algorithm>

#include "divbench/core/errors.hpp"
#include "harness/experiment.hpp"
#include "harness/runner.hpp"

using namespace divbench;

namespace {

std::vector<AxisDecl> cost_like() {
  AxisSpec placement = placement_axis();
  placement.label = AxisLabel::keyed;
  return {{body_axis(), json{"fma_chain", "sfu"}},
          {placement, json{0, 4}},
          {n_axis("--n"), json{0, 1000}},
          {k_axis(), json{1, 2}}};
}

CommandLine selecting(const std::string& kind, const std::string& name,
                      std::initializer_list<std::pair<std::string, std::string>> given) {
  CommandLine o;
  o.set("--" + kind, name);
  for (const auto& [option, text] : given) o.set(option, text);
  return o;
}

std::string refusal(const CommandLine& o) {
  try {
    prepare_experiments(o);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Axes, LabelsFollowTheDeclarationOrderAndLabelKinds) {
  const json pt{{"k", 7}, {"n", 1000}, {"placement", 4}, {"body", "sfu"}};
  EXPECT_EQ(axes_label(cost_like(), pt), "sfu/placement:4/n:1000/k:7");
  // A placement axis labelled only when varied: one placement leaves it out of the label.
  std::vector<AxisDecl> kway{{placement_axis(), json{0}}, {k_axis(), json{1, 7}}};
  EXPECT_EQ(axes_label(kway, json{{"placement", 0}, {"k", 7}}), "k:7");
  kway[0].values = json{0, 1};
  EXPECT_EQ(axes_label(kway, json{{"placement", 1}, {"k", 7}}), "placement:1/k:7");
  // A label key other than the axis name.
  const std::vector<AxisDecl> order{{{"group_size", AxisType::integer, "lanes", "--k", "", AxisLabel::keyed, "g"}, json{3}}};
  EXPECT_EQ(axes_label(order, json{{"group_size", 3}}), "g:3");
}

TEST(Axes, PointCoordinatesAreCheckedAgainstTheDeclaration) {
  const auto axes = cost_like();
  EXPECT_NO_THROW(check_point_axes("cost", axes, json{{"body", "sfu"}, {"placement", 0}, {"n", 0}, {"k", 1}}));
  // missing, mistyped (a float where int is declared, a number where a string is), undeclared
  EXPECT_THROW(check_point_axes("cost", axes, json{{"body", "sfu"}, {"placement", 0}, {"k", 1}}), std::logic_error);
  EXPECT_THROW(check_point_axes("cost", axes, json{{"body", "sfu"}, {"placement", 0}, {"n", 0.5}, {"k", 1}}),
               std::logic_error);
  EXPECT_THROW(check_point_axes("cost", axes, json{{"body", 3}, {"placement", 0}, {"n", 0}, {"k", 1}}), std::logic_error);
  EXPECT_THROW(check_point_axes("cost", axes, json{{"body", "sfu"}, {"placement", 0}, {"n", 0}, {"k", 1}, {"map", "x"}}),
               std::logic_error);
}

TEST(Axes, HarnessStampsAxesAndLabelsOnTimedAndRawPoints) {
  const std::vector<AxisDecl> axes{{k_axis(), json{1, 2}}, {{"form", AxisType::string, "", "", "", AxisLabel::bare}, json{"a"}}};
  PointSpec timed{{{"k", 2}, {"form", "a"}}, "", [] { return PointResult{}; }, nullptr, nullptr};
  PointSpec raw{{{"k", 1}, {"form", "a"}}, "", [] {
                  PointResult r;
                  r.timed = false;
                  r.raw = json{{"completed", true}};
                  return r;
                },
                nullptr, nullptr};
  const auto pts = with_declared_axes("demo", axes, {timed, raw});
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].label, "k:2/a");
  EXPECT_EQ(pts[1].label, "k:1/a");
  EXPECT_EQ(pts[0].run().point.axes, json({{"k", 2}, {"form", "a"}}));
  const PointResult r = pts[1].run();
  EXPECT_EQ(r.raw["axes"], json({{"k", 1}, {"form", "a"}}));
  EXPECT_EQ(r.raw["completed"], true);
  // A plan whose point names an undeclared axis is a programming error, caught before anything runs.
  PointSpec bad{{{"k", 1}, {"form", "a"}, {"extra", 1}}, "", [] { return PointResult{}; }, nullptr, nullptr};
  EXPECT_THROW(with_declared_axes("demo", axes, {bad}), std::logic_error);
}

TEST(Axes, KwayConfigAxesCarryTheValuesThatRun) {
  CommandLine o = selecting("sweep", "k", {{"--k", "1,4,8"}, {"--placements", "2"}});
  const json axes = prepare_experiments(o).at(0).config["axes"];
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[0]["name"], "placement");
  EXPECT_EQ(axes[0]["values"], json({0, 4}));
  EXPECT_EQ(axes[0]["option"], "--placements");
  EXPECT_EQ(axes[1]["name"], "k");
  EXPECT_EQ(axes[1]["type"], "int");
  EXPECT_EQ(axes[1]["unit"], "paths");
  EXPECT_EQ(axes[1]["values"], json({1, 4, 8}));
}

TEST(AcceptedOptions, AnOptionNoAxisOrSettingDeclaresIsRefusedNamingIt) {
  // Options the probes used to ignore without a word.
  EXPECT_EQ(refusal(selecting("probe", "order", {{"--warmup", "3"}})),
            "--probe order: --warmup does not apply (it takes --k --reps)");
  EXPECT_EQ(refusal(selecting("probe", "lock", {{"--k", "3"}})), "--probe lock: --k does not apply (it takes --reps)");
  EXPECT_NE(refusal(selecting("sweep", "calibration", {{"--reps", "5"}})).find("--reps does not apply"), std::string::npos);
  EXPECT_NE(refusal(selecting("sweep", "occupancy", {{"--no-samples", "true"}})).find("--no-samples does not apply"),
            std::string::npos);
  EXPECT_NE(refusal(selecting("sweep", "k", {{"--n", "0,1000"}})).find("--sweep k: --n does not apply"), std::string::npos);
  // What they declare passes (the harness's own options always do).
  EXPECT_EQ(refusal(selecting("probe", "order",
                              {{"--k", "3"}, {"--reps", "5"}, {"--out", "x.json"}, {"--quiet", "true"}, {"--metrics", "true"}})),
            "");
  EXPECT_EQ(prepare_experiments(selecting("probe", "order", {{"--k", "3"}})).at(0).config["group_sizes"], json({3}));
  EXPECT_EQ(refusal(selecting("sweep", "k", {{"--body", "sfu"}, {"--map", "permuted"}, {"--iters", "10"}, {"--seed", "7"},
                                             {"--sampling", "single"}, {"--no-samples", "true"}})),
            "");
}

TEST(AcceptedOptions, UnderAllAnOptionMustBeTakenBySomeExperimentThatRuns) {
  CommandLine o;
  o.set("--all");
  o.set("--body", "fma_chain");
  o.set("--reps", "201");
  o.set("--k", "1,2,4");
  EXPECT_EQ(refusal(o), "");  // the k sweep takes them
  // --n is the shared iteration counts: under --all it reaches the predication sweep's n axis.
  o.set("--n", "1000,5000");
  std::vector<std::string> notes;
  const auto all = prepare_experiments(o, &notes);
  const auto pred = std::find_if(all.begin(), all.end(), [](const PreparedExperiment& p) { return p.name == "predication"; });
  ASSERT_NE(pred, all.end());
  EXPECT_EQ(pred->config["ns"], json({1000, 5000}));
  // ... and --k, the shared path counts, reaches the k sweep, not predication's own --k (its arm counts),
  // which keeps its default and is named in a note.
  const auto kway = std::find_if(all.begin(), all.end(), [](const PreparedExperiment& p) { return p.name == "kway"; });
  EXPECT_EQ(kway->config["ks"], json({1, 2, 4}));
  EXPECT_EQ(pred->config["predicated_arms"].size(), 6u);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(),
                          [](const std::string& n) { return n.rfind("--k does not reach predication under --all", 0) == 0; }));
  // An option only an experiment outside --all declares.
  o.set("--loop-cost", "x.json");
  EXPECT_EQ(refusal(o).rfind("--all: --loop-cost does not apply", 0), 0u) << refusal(o);
}

TEST(AxisOption, SetsADeclaredAxisByItsName) {
  // --axis NAME=VALUES sets the option of the axis NAME: predication's arms (its own --k) and the n axis.
  CommandLine o = selecting("sweep", "predication", {});
  o.axis = {{"arms", "2,4"}, {"n", "100,200"}};
  const json c = prepare_experiments(o).at(0).config;
  EXPECT_EQ(c["predicated_arms"], json({1, 2, 4}));  // 1 and 2 always run: the ratios' baselines
  EXPECT_EQ(c["ns"], json({100, 200}));
  // Under --all it reaches the experiments that have the axis, predication's own arms included.
  CommandLine all;
  all.set("--all");
  all.axis = {{"arms", "4"}};
  const auto prepared = prepare_experiments(all);
  const auto pred = std::find_if(prepared.begin(), prepared.end(), [](const PreparedExperiment& p) { return p.name == "predication"; });
  EXPECT_EQ(pred->config["predicated_arms"], json({1, 2, 4}));
  // Refused: an axis no selected experiment has, one a value cannot set (placement is set by a count),
  // the same axis by both names, a bad value (named by its option).
  CommandLine none = selecting("sweep", "k", {});
  none.axis = {{"arms", "2"}};
  EXPECT_EQ(refusal(none), "--axis arms: --sweep k has no axis of that name that a value sets (settable: k)");
  none.axis = {{"placement", "2"}};
  EXPECT_NE(refusal(none).find("--axis placement: "), std::string::npos);
  CommandLine both = selecting("sweep", "k", {{"--k", "1,2"}});
  both.axis = {{"k", "1-4"}};
  EXPECT_EQ(refusal(both), "--axis k: --k sets the same axis of kway; give one of them");
  CommandLine bad = selecting("sweep", "k", {});
  bad.axis = {{"k", "0-4"}};
  EXPECT_NE(refusal(bad).find("--k: 0 is outside 1..32"), std::string::npos) << refusal(bad);
}
