// The order probe's typed configuration and summary without a GPU (docs/dynamic.md, "Path-scheduling order"), and the
// producer/consumer, peer-wait and lock summaries' order fields: --k gives the group sizes (32
// refused), --reps is capped and said; finalize() fits the rule to synthetic points, reports
// launches that disagreed, points whose layout the SASS did not confirm and layout or form
// mismatches; a group's side and the form follow the SASS answer, and stay unknown without one.
#include <gtest/gtest.h>

#include "divbench/core/errors.hpp"
#include "divbench/core/lane_group.hpp"
#include "divbench/core/side_order.hpp"
#include "probes/probe_layout.hpp"
#include "harness/experiment.hpp"
#include "tests/cpu/experiments/synthetic_points.hpp"
#include "harness/runner.hpp"

using namespace divbench;

namespace {

PreparedExperiment order(CommandLine o) {
  o.set("--probe", "order");
  return synthetic::prepare("probe", "order", o);
}

// One order point as plan() writes it: the six fields from `launches` runs plus the probe's keys.
json order_point(int g, GroupPosition pos, const std::string& side, const std::string& form,
                 const std::vector<const char*>& firsts, bool verified = true, bool matches = true) {
  json runs = json::array();
  for (const char* f : firsts) runs.push_back(json{{"first", f}, {"cycles_between", 100}});
  json p = side_order_fields(group_mask(g, pos), side, form, combine_launches(runs));
  p["group_size"] = g;
  p["layout_verified"] = verified;
  p["layout_matches_intent"] = verified ? json(matches) : json(nullptr);
  p["form_matches_intent"] = verified ? json(true) : json(nullptr);
  p["cap_reached"] = false;
  return p;
}

// A bssy_backward point: the group's arm on `side`, the taken side below the fall-through side.
json backward_point(int g, GroupPosition pos, const std::string& side, const std::vector<const char*>& firsts) {
  json p = order_point(g, pos, side, "bssy", firsts);
  p["order_form"] = "bssy_backward";
  p["intended_taken_below"] = true;
  p["layout"] = json{{"taken_below_fallthrough", true}};
  p["taken_below_matches_intent"] = true;
  return p;
}

json finalize(const PreparedExperiment& e, json points) {
  ResultRecord r;
  r.points_extra = std::move(points);
  e.finalize(r);
  return r.summary;
}

}  // namespace

TEST(OrderProbe, DefaultsAndOptions) {
  const json c = order(CommandLine{}).config;
  EXPECT_EQ(c["group_sizes"], json({1, 2, 4, 8, 15, 16, 17, 24, 28, 31}));
  EXPECT_EQ(c["positions"], json({"low", "high", "scattered"}));
  EXPECT_EQ(c["forms"], json({"bssy", "warpsync", "bssy_backward", "bssy_loop", "warpsync_loop"}));
  EXPECT_EQ(c["launches"], 9);  // --reps 201 (the default) capped
  EXPECT_EQ(c["launches_cap"], 9);
  EXPECT_FALSE(order(CommandLine{}).notes.empty());
  CommandLine o;
  o.set("--k", "1,16");
  o.set("--reps", "3");
  const PreparedExperiment p = order(o);
  EXPECT_EQ(p.config["group_sizes"], json({1, 16}));
  EXPECT_EQ(p.config["launches"], 3);
  EXPECT_TRUE(p.notes.empty());
}

TEST(OrderProbe, BadOptionsAreRefused) {
  CommandLine o;
  o.set("--k", "4,32");
  EXPECT_THROW(order(o), UsageError);
  // Options the probe does not declare: refused by the one accepted-options check, before parse().
  for (const char* opt : {"--body", "--map", "--seed", "--n", "--sampling", "--placements", "--iters", "--warmup",
                          "--no-samples"}) {
    CommandLine b;
    b.set("--probe", "order");
    b.set(opt, std::string(opt) == "--no-samples" ? "true" : "1");
    EXPECT_THROW(prepare_experiments(b), UsageError) << opt;
  }
  // Under --all, --k is the sweeps' path counts: the order probe keeps its group sizes.
  o.set("--all");
  const auto all = prepare_experiments(o);
  const auto p = std::find_if(all.begin(), all.end(), [](const PreparedExperiment& x) { return x.name == "order"; });
  ASSERT_NE(p, all.end());
  EXPECT_EQ(p->config["group_sizes"].size(), 10u);
}

TEST(OrderProbe, FinalizeFitsTheRuleAndReportsConsistency) {
  // Points made by "fewer lanes first; fall-through on ties", one launch of one point disagreeing.
  json pts = json::array();
  for (int g : {1, 16, 31})
    for (const char* side : {"fallthrough", "taken"}) {
      const bool group_first = g < 16 || (g == 16 && std::string(side) == "fallthrough");
      const char* f = group_first ? "group" : "rest";
      pts.push_back(order_point(g, GroupPosition::low, side, "bssy", {f, f, f}));
    }
  pts.push_back(order_point(1, GroupPosition::high, "taken", "warpsync", {"group", "rest", "group"}));
  const json s = finalize(order(CommandLine{}), pts);
  EXPECT_EQ(s["rule_id"], "minority_first_tie_fallthrough");
  // Every point here has its fall-through side at the lower address: the "lower address" tie rule fits too.
  EXPECT_EQ(s["rule"],
            "the side with fewer active lanes runs first; on ties the fall-through side: 7 of 7 points, no exceptions; "
            "equally consistent: the side with fewer active lanes runs first; on ties the side at the lower address");
  EXPECT_TRUE(s["rule_exceptions"].empty());
  EXPECT_EQ(s["rules"].size(), 9u);
  EXPECT_EQ(s["ties"]["verdict"], "undecided");
  EXPECT_FALSE(s["first_consistent_across_launches"].get<bool>());
  EXPECT_EQ(s["inconsistent_points"], json({"g=1 high taken warpsync"}));
  EXPECT_TRUE(s["layout_verified"].get<bool>());
  EXPECT_TRUE(s["layout_mismatches"].empty());
  EXPECT_EQ(s["points"], 7);
  // g = 16 low on either side: the fall-through lanes are 0..15 or 16..31; g = 1 and 31 low on the
  // two sides: {0}, ~{0}, {0..30}, {31}; the warpsync point ~{31} is another form: 7 of 7 distinct,
  // 6 distinct fall-through masks (~{31} = {0..30} under bssy).
  EXPECT_EQ(s["distinct_masks"], 7);
  EXPECT_EQ(s["distinct_fallthrough_masks"], 6);
  EXPECT_TRUE(s["rule_by_form"]["warpsync"].get<std::string>().find("1 of 1 points") != std::string::npos);
}

TEST(OrderProbe, FinalizeSaysWhereTiesGo) {
  // Forward points only (the fall-through side is the lower address): ties cannot tell the two apart.
  json fwd = json::array();
  for (const char* side : {"fallthrough", "taken"}) {
    const char* tie = std::string(side) == "fallthrough" ? "group" : "rest";  // the fall-through side first
    fwd.push_back(order_point(16, GroupPosition::low, side, "bssy", {tie}));
    fwd.push_back(order_point(1, GroupPosition::low, side, "bssy", {"group"}));
  }
  json s = finalize(order(CommandLine{}), fwd);
  EXPECT_EQ(s["ties"]["verdict"], "undecided");
  EXPECT_EQ(s["ties"]["tie_points"], 2);
  EXPECT_EQ(s["ties"]["tie_points_taken_below"], 0);
  EXPECT_EQ(s["rule_id"], "minority_first_tie_fallthrough");
  EXPECT_EQ(s["rules_equally_consistent"], json({"minority_first_tie_lower"}));
  EXPECT_EQ(s["points_taken_below"], 0);
  // Backward points where the fall-through side (the higher address) wins the tie: "fallthrough".
  json ft = fwd, low = fwd;
  for (const char* side : {"fallthrough", "taken"}) {
    const bool on_ft = std::string(side) == "fallthrough";
    ft.push_back(backward_point(16, GroupPosition::high, side, {on_ft ? "group" : "rest"}));
    low.push_back(backward_point(16, GroupPosition::high, side, {on_ft ? "rest" : "group"}));
    ft.push_back(backward_point(1, GroupPosition::high, side, {"group"}));
    low.push_back(backward_point(1, GroupPosition::high, side, {"group"}));
  }
  s = finalize(order(CommandLine{}), ft);
  EXPECT_EQ(s["ties"]["verdict"], "fallthrough");
  // The ties per branch site: one site with the taken side below so far.
  EXPECT_EQ(s["ties"]["sites_taken_below"], 1);
  EXPECT_EQ(s["ties"]["by_site"]["bssy_backward"]["tie_points"], 2);
  EXPECT_EQ(s["ties"]["by_site"]["bssy_backward"]["tie_points_taken_below"], 2);
  EXPECT_EQ(s["ties"]["by_site"]["bssy_backward"]["fallthrough_first"], 2);
  EXPECT_EQ(s["ties"]["by_site"]["bssy_backward"]["lower_first"], 0);
  {
    // Two more sites with the taken side below (the loop kernels) make three, each counted apart.
    json more = ft;
    for (const char* site : {"bssy_loop", "warpsync_loop"})
      for (const char* side : {"fallthrough", "taken"}) {
        json p = backward_point(16, GroupPosition::low, side, {std::string(side) == "fallthrough" ? "group" : "rest"});
        p["order_form"] = site;
        more.push_back(p);
      }
    const json t = finalize(order(CommandLine{}), more)["ties"];
    EXPECT_EQ(t["sites_taken_below"], 3);
    EXPECT_EQ(t["by_site"]["bssy_loop"]["tie_points_taken_below"], 2);
    EXPECT_EQ(t["by_site"]["warpsync_loop"]["fallthrough_first"], 2);
    EXPECT_EQ(t["verdict"], "fallthrough");
    EXPECT_NE(t["sentence"].get<std::string>().find("at 3 branch sites"), std::string::npos) << t["sentence"];
  }
  EXPECT_EQ(s["rule_id"], "minority_first_tie_fallthrough");
  EXPECT_TRUE(s["rules_equally_consistent"].empty());
  EXPECT_EQ(s["points_taken_below"], 4);
  EXPECT_EQ(s["rule_by_layout"]["taken_below"].get<std::string>().rfind("the side with fewer active lanes runs first; on "
                                                                        "ties the fall-through side: 4 of 4",
                                                                        0),
            0u);
  // The same backward points with the lower address (the taken side) winning: "lower_address", and
  // neither tie rule fits every point (the forward ties went to the fall-through = lower side).
  s = finalize(order(CommandLine{}), low);
  EXPECT_EQ(s["ties"]["verdict"], "lower_address");
  EXPECT_EQ(s["rule_id"], "minority_first_tie_lower");
  EXPECT_TRUE(s["rule_exceptions"].empty());
  EXPECT_EQ(s["ties"]["sentence"].get<std::string>().rfind("ties go to the side at the lower address", 0), 0u);
  // Labels keep the backward points apart from the forward ones.
  EXPECT_EQ(s["rules"][0]["exception_points"], json({"g=16 high fallthrough bssy backward",
                                                     "g=16 high taken bssy backward"}));
  // Backward and forward points of one lane mask are two experiments.
  EXPECT_EQ(s["distinct_masks"], 8);
}

TEST(OrderProbe, FinalizeNamesUnverifiedAndMismatchedLayouts) {
  json pts = json::array();
  pts.push_back(order_point(2, GroupPosition::low, "fallthrough", "bssy", {"rest"}, true, false));
  pts.push_back(order_point(2, GroupPosition::low, "taken", "bssy", {"rest"}, false));
  const json s = finalize(order(CommandLine{}), pts);
  EXPECT_FALSE(s["layout_verified"].get<bool>());
  EXPECT_EQ(s["rule"].get<std::string>().rfind("(fall-through sides not verified in the SASS) the side with more", 0), 0u);
  EXPECT_EQ(s["layout_mismatches"], json({"g=2 low fallthrough bssy"}));
  EXPECT_EQ(s["rule_id"], "majority_first_tie_fallthrough");  // the majority side ran first in both
}

TEST(OrderProbe, AFormMismatchKeepsTheSassFormAndNamesTheKernel) {
  // On sm_75..sm_89 the warpsync kernel keeps its BSSY: its points are labelled bssy, listed, and
  // named apart from the bssy kernel's points.
  json bssy = order_point(4, GroupPosition::high, "taken", "bssy", {"group"});
  json warp = order_point(4, GroupPosition::high, "taken", "bssy", {"rest"});
  warp["intended_form"] = "warpsync";
  warp["form_matches_intent"] = false;
  const json s = finalize(order(CommandLine{}), json::array({bssy, warp}));
  EXPECT_EQ(s["form_mismatches"], json({"g=4 high taken bssy [warpsync kernel]"}));
  EXPECT_TRUE(s["taken_below_mismatches"].empty());
  EXPECT_TRUE(s["rule_by_form"]["warpsync"].get<std::string>().rfind("no points", 0) == 0);
}

TEST(ProbeOrderFields, ProducerConsumerConclusionCountsTheProducerSide) {
  auto pc = [](const char* variant, std::uint32_t producers, const char* side, const char* first) {
    json runs = json::array({json{{"first", first}, {"cycles_between", 10}}});
    json p = side_order_fields(producers, std::string(side), std::string("warpsync"), combine_launches(runs));
    p.update(json{{"variant", variant}, {"producer_first", std::string(side) == "fallthrough"},
                  {"producer_in_then", std::string(side) == "fallthrough"}, {"work", 1000}, {"max_consumer_spins", 0},
                  {"completed", true}, {"producer_entered_first", std::string(first) == "group"}});
    return p;
  };
  // The minority ran first in every order: the lone producer, and the lone consumer of the majority.
  const json pts = json::array({pc("producer_minority", 0x1u, "fallthrough", "group"),
                                pc("producer_minority", 0x1u, "taken", "group"),
                                pc("producer_majority", 0x7fffffffu, "fallthrough", "rest"),
                                pc("producer_majority", 0x7fffffffu, "taken", "rest")});
  ResultRecord r;
  r.points_extra = pts;
  synthetic::prepare("probe", "producer_consumer", CommandLine{}).finalize(r);
  const json& c = r.summary["conclusion"];
  EXPECT_EQ(c["producer_side_first"], 2);
  EXPECT_EQ(c["fit"]["rule_id"], "minority_first_tie_fallthrough");
  EXPECT_EQ(c["sentence"].get<std::string>().rfind("the producer side entered first in 2 of 4 orders; "
                                                   "producer_majority: 0 of 2; producer_minority: 2 of 2",
                                                   0),
            0u);
  EXPECT_EQ(r.summary["orders"][2]["group_lanes"].size(), 31u);
  EXPECT_EQ(r.summary["orders"][2]["first"], "rest");
}

TEST(ProbeLayout, SideAndFormFollowTheSass) {
  ProbeLayout l;
  EXPECT_FALSE(group_side(l, true));  // no SASS answer: unknown, not assumed
  EXPECT_FALSE(reconvergence_form(l));
  l.arms.side = model::ArmSide{"k", 0x100, "else", false, {}, {}};  // the else arm falls through, no BSSY
  EXPECT_EQ(group_side(l, true), std::optional<std::string>("taken"));
  EXPECT_EQ(group_side(l, false), std::optional<std::string>("fallthrough"));
  EXPECT_EQ(reconvergence_form(l), std::optional<std::string>("warpsync"));
  l.arms.side->fallthrough_arm = "then";
  l.arms.side->bssy_guarded = true;
  EXPECT_EQ(group_side(l, true), std::optional<std::string>("fallthrough"));
  EXPECT_EQ(reconvergence_form(l), std::optional<std::string>("bssy"));
  EXPECT_EQ(to_json(l)["fallthrough_arm"], "then");
  EXPECT_TRUE(to_json(l)["taken_below_fallthrough"].is_null());  // no addresses: unknown
  EXPECT_FALSE(taken_below_fallthrough(l));
  l.arms.side->fallthrough_at = 0x110;
  l.arms.side->taken_at = 0x80;  // a backward branch
  EXPECT_EQ(taken_below_fallthrough(l), std::optional<bool>(true));
  EXPECT_EQ(to_json(l)["taken_below_fallthrough"], true);
  EXPECT_EQ(to_json(l)["taken_at"], 0x80);
  // This test binary has no kernel_facts.json beside it: the layout is unknown and says why.
  const ProbeLayout none = probe_layout(DeviceRecord{}, {{"order_kernelILb0E"}, "order_armILi0E", "order_armILi1E"});
  EXPECT_FALSE(none.arms.side);
  EXPECT_EQ(to_json(none)["source"], "unknown");
  EXPECT_TRUE(to_json(none)["taken_below_fallthrough"].is_null());
  EXPECT_FALSE(to_json(none)["error"].get<std::string>().empty());
}
