// Declared axes (bench/harness/axes.hpp), without a GPU: the labels and point.axes made from one
// declaration, the typed check of a point's coordinates, config.axes (every experiment's:
// test_configs.cpp) and the one accepted-options check (an option no axis or setting of the
// selected experiments declares: exit 2).
#include <gtest/gtest.h>


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

RunOptions selecting(const std::string& kind, const std::string& name, std::initializer_list<std::string> given) {
  RunOptions o;
  (kind == "sweep" ? o.sweep : o.probe) = name;
  for (const auto& g : given) o.given.insert(g);
  return o;
}

std::string refusal(const RunOptions& o) {
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
  RunOptions o = selecting("sweep", "k", {"--k", "--placements"});
  o.ks = {1, 4, 8};
  o.placements = 2;
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
  EXPECT_EQ(refusal(selecting("probe", "order", {"--warmup"})),
            "--probe order: --warmup does not apply (it takes --k --reps)");
  EXPECT_EQ(refusal(selecting("probe", "lock", {"--k"})), "--probe lock: --k does not apply (it takes --reps)");
  EXPECT_NE(refusal(selecting("sweep", "calibration", {"--reps"})).find("--reps does not apply"), std::string::npos);
  EXPECT_NE(refusal(selecting("sweep", "occupancy", {"--no-samples"})).find("--no-samples does not apply"),
            std::string::npos);
  EXPECT_NE(refusal(selecting("sweep", "k", {"--n"})).find("--sweep k: --n does not apply"), std::string::npos);
  // What they declare passes (the harness's own options always do).
  EXPECT_EQ(refusal(selecting("probe", "order", {"--k", "--reps", "--out", "--quiet", "--metrics"})), "");
  RunOptions order_k = selecting("probe", "order", {"--k"});
  order_k.ks = {3};
  EXPECT_EQ(prepare_experiments(order_k).at(0).config["group_sizes"], json({3}));
  EXPECT_EQ(refusal(selecting("sweep", "k", {"--body", "--map", "--iters", "--seed", "--sampling", "--no-samples"})), "");
}

TEST(AcceptedOptions, UnderAllAnOptionMustBeTakenBySomeExperimentThatRuns) {
  RunOptions o;
  o.all = true;
  o.given = {"--k", "--body", "--reps"};
  o.ks = {1, 2, 4};
  EXPECT_EQ(refusal(o), "");  // the k sweep takes them
  o.given = {"--n"};  // the cost sweep's, which --all does not run; predication keeps its defaults there
  EXPECT_EQ(refusal(o).rfind("--all: --n does not apply", 0), 0u) << refusal(o);
}
