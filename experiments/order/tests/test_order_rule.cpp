// The order probe's host side without a GPU: lane groups (low, high, scattered), which side entered
// first from per-lane clocks, the majority over launches, and the rule fit: on synthetic points
// made by each candidate rule, that candidate (and only it) fits with no exceptions; exceptions are
// named; bad observations are refused; where ties go (fall-through side or lower address) is
// undecided on forward layouts and decided, either way, once the taken side is also below.
#include <gtest/gtest.h>

#include <stdexcept>

#include "divbench/core/lane_group.hpp"
#include "divbench/core/side_order.hpp"
#include "experiments/order/summary.hpp"

using namespace divbench;

TEST(LaneGroup, PositionsAndSizes) {
  EXPECT_EQ(group_mask(1, GroupPosition::low), 0x1u);
  EXPECT_EQ(group_mask(1, GroupPosition::high), 0x80000000u);
  EXPECT_EQ(group_mask(1, GroupPosition::scattered), 1u << 7);
  EXPECT_EQ(group_mask(16, GroupPosition::low), 0x0000ffffu);
  EXPECT_EQ(group_mask(16, GroupPosition::high), 0xffff0000u);
  EXPECT_EQ(mask_lanes(group_mask(4, GroupPosition::scattered)), (std::vector<int>{1, 7, 14, 20}));
  // g = 31 scattered leaves out lane 26, the sequence's last entry.
  EXPECT_EQ(group_mask(31, GroupPosition::scattered), ~(1u << 26));
  for (int g : {1, 2, 4, 8, 15, 16, 17, 24, 28, 31})
    for (GroupPosition p : all_group_positions()) {
      const std::uint32_t m = group_mask(g, p);
      EXPECT_EQ(mask_size(m), g);
      // g = 31 at low/high: ~lane 31 and ~lane 0; scattered never coincides with them here.
      EXPECT_EQ(classify_group_position(m), group_position_name(p)) << g;
    }
  EXPECT_FALSE(mask_has_lane(group_mask(29, GroupPosition::scattered), 0));
  EXPECT_TRUE(mask_has_lane(group_mask(30, GroupPosition::scattered), 0));
  EXPECT_EQ(classify_group_position(0x55555555u), "scattered");  // the peer-wait probe's even lanes
  EXPECT_THROW(group_mask(0, GroupPosition::low), std::invalid_argument);
  EXPECT_THROW(group_mask(32, GroupPosition::low), std::invalid_argument);
}

TEST(SideOrder, EntryOrderFromClocks) {
  std::vector<std::uint64_t> clk(32, 500);
  clk[0] = 100;  // group {0} entered at 100, the rest at 500
  EntryOrder e = entry_order(clk, 0x1u);
  EXPECT_EQ(e.first, std::optional<std::string>("group"));
  EXPECT_EQ(e.cycles_between, 400u);
  EXPECT_FALSE(e.interleaved);
  clk[0] = 900;
  e = entry_order(clk, 0x1u);
  EXPECT_EQ(e.first, std::optional<std::string>("rest"));
  EXPECT_EQ(e.cycles_between, 400u);
  clk[5] = 1000;  // one rest lane entered after the group: the sides interleaved
  e = entry_order(clk, 0x1u);
  EXPECT_TRUE(e.interleaved);
  EXPECT_EQ(e.rest_spread, 500u);
  clk.assign(32, 7);
  EXPECT_FALSE(entry_order(clk, 0x1u).first.has_value());
  // Only the lanes that took part count; an empty side is refused.
  clk[3] = 1;
  EXPECT_EQ(entry_order(clk, 0x8u, 0xcu).first, std::optional<std::string>("group"));
  EXPECT_THROW(entry_order(clk, 0xffffffffu), std::invalid_argument);
  EXPECT_THROW(entry_order(std::vector<std::uint64_t>(4, 0), 0x1u), std::invalid_argument);
}

TEST(SideOrder, MajorityOverLaunches) {
  auto run = [](const char* first, double between) {
    return json{{"first", first ? json(first) : json(nullptr)}, {"cycles_between", between}};
  };
  LaunchOrders o = combine_launches(json::array({run("rest", 10), run("group", 30), run("group", 20)}));
  EXPECT_EQ(o.first, std::optional<std::string>("group"));
  EXPECT_FALSE(o.consistent);
  EXPECT_EQ(o.group_first, 2);
  EXPECT_DOUBLE_EQ(o.cycles_between, 20);
  EXPECT_DOUBLE_EQ(o.cycles_between_min, 10);
  o = combine_launches(json::array({run("rest", 1), run("group", 1)}));  // a tie: the earliest run's
  EXPECT_EQ(o.first, std::optional<std::string>("rest"));
  o = combine_launches(json::array({run("rest", 5), run("rest", 5)}));
  EXPECT_TRUE(o.consistent);
  o = combine_launches(json::array({run(nullptr, 0)}));
  EXPECT_FALSE(o.first.has_value());
  const json f = side_order_fields(0x3u, std::string("taken"), std::nullopt, o);
  EXPECT_EQ(f["group_lanes"], json({0, 1}));
  EXPECT_EQ(f["group_position"], "low");
  EXPECT_EQ(f["group_side"], "taken");
  EXPECT_TRUE(f["form"].is_null());
  EXPECT_TRUE(f["first"].is_null());
  for (const auto& k : side_order_keys()) EXPECT_TRUE(f.contains(k)) << k;
  EXPECT_THROW(combine_launches(json::array()), std::invalid_argument);
}

namespace {

// The order probe's grid: every size, position and side, in both layouts (the fall-through side at the
// lower address, and the taken side there: bssy_backward).
std::vector<OrderObservation> grid() {
  std::vector<OrderObservation> v;
  for (bool below : {false, true})
    for (int g : {1, 2, 4, 8, 15, 16, 17, 24, 28, 31})
      for (GroupPosition p : all_group_positions())
        for (const char* side : {"fallthrough", "taken"})
          v.push_back({group_mask(g, p), 0xffffffffu, side, "",
                       "g=" + std::to_string(g) + " " + group_position_name(p) + " " + side + (below ? " backward" : ""),
                       below});
  return v;
}

std::vector<OrderObservation> made_by(const OrderRule& rule) {
  auto v = grid();
  for (auto& o : v) o.first = rule.predict(o);
  return v;
}

}  // namespace

TEST(OrderRule, EachCandidateWinsOnItsOwnPoints) {
  for (std::size_t i = 0; i < order_rules().size(); ++i) {
    const OrderRule& rule = order_rules()[i];
    SCOPED_TRACE(rule.id);
    const auto obs = made_by(rule);
    const RuleFit fit = fit_order_rule(obs);
    EXPECT_EQ(fit.best, i);
    EXPECT_TRUE(fit.scores[i].exceptions.empty());
    EXPECT_TRUE(fit.tied.empty());
    for (std::size_t j = 0; j < fit.scores.size(); ++j)
      if (j != i) EXPECT_FALSE(fit.scores[j].exceptions.empty()) << order_rules()[j].id;
    const json s = rule_summary(fit, obs);
    EXPECT_EQ(s["rule_id"], rule.id);
    EXPECT_EQ(s["rule"], rule.sentence + ": 120 of 120 points, no exceptions");
    EXPECT_EQ(s["rules"].size(), order_rules().size());
    EXPECT_EQ(s["points_fitted"], 120);
  }
}

TEST(OrderRule, TheMinorityRuleSeparatesFromTheOthersWhereTheyDiffer) {
  // The hypothesis under test: fewer active lanes first, fall-through on ties. It and "fall-through
  // first" agree except where the minority is on the taken side.
  const auto& rules = order_rules();
  const OrderObservation minority_taken{0x1u, 0xffffffffu, "taken", "", "g=1 low taken"};
  EXPECT_EQ(rules[0].predict(minority_taken), "group");
  EXPECT_EQ(rules[3].predict(minority_taken), "rest");
  const OrderObservation tie_taken{0xffffu, 0xffffffffu, "taken", "", "g=16 low taken"};
  EXPECT_EQ(rules[0].predict(tie_taken), "rest");
  EXPECT_EQ(rules[1].predict(tie_taken), "group");
  const OrderObservation lane31{0x80000000u, 0xffffffffu, "fallthrough", "", "g=1 high"};
  EXPECT_EQ(rules[5].predict(lane31), "rest");
  EXPECT_EQ(rules[6].predict(lane31), "group");
}

TEST(OrderRule, ExceptionsAreNamedInTheSentence) {
  auto obs = made_by(order_rules()[0]);
  obs[0].first = obs[0].first == "group" ? "rest" : "group";  // g=1 low fallthrough flips
  obs[5].first = obs[5].first == "group" ? "rest" : "group";  // g=1 scattered taken flips
  const RuleFit fit = fit_order_rule(obs);
  EXPECT_EQ(fit.best, 0u);
  const json s = rule_summary(fit, obs);
  EXPECT_EQ(s["rule_exceptions"], json({"g=1 low fallthrough", "g=1 scattered taken"}));
  EXPECT_EQ(s["rule"], order_rules()[0].sentence +
                           ": 118 of 120 points; exceptions: g=1 low fallthrough (rest first), g=1 scattered taken "
                           "(rest first)");
}

TEST(OrderRule, FallThroughAndLowerAddressPartOnlyWhereTheTakenSideIsBelow) {
  const auto& rules = order_rules();
  ASSERT_EQ(rules[7].id, "minority_first_tie_lower");
  ASSERT_EQ(rules[8].id, "lower_first");
  // A forward branch: the fall-through side is the lower address, the two tie rules agree.
  OrderObservation tie{0xffffu, 0xffffffffu, "taken", "", "g=16 low taken"};
  EXPECT_EQ(rules[0].predict(tie), "rest");
  EXPECT_EQ(rules[7].predict(tie), "rest");
  EXPECT_EQ(rules[8].predict(tie), rules[3].predict(tie));
  // A backward branch: the taken side (here the group) is the lower address.
  tie.taken_below = true;
  EXPECT_EQ(rules[0].predict(tie), "rest");
  EXPECT_EQ(rules[7].predict(tie), "group");
  EXPECT_EQ(rules[8].predict(tie), "group");
  EXPECT_EQ(rules[3].predict(tie), "rest");
  // Away from ties both minority rules say the same.
  const OrderObservation one{0x1u, 0xffffffffu, "fallthrough", "", "g=1 low", true};
  EXPECT_EQ(rules[0].predict(one), "group");
  EXPECT_EQ(rules[7].predict(one), "group");
}

namespace {

// The order probe's grid made by one minority rule, forward layouts only or both.
std::vector<OrderObservation> made_by_minority(bool tie_lower, bool with_backward) {
  std::vector<OrderObservation> v;
  for (auto& o : made_by(order_rules()[tie_lower ? 7 : 0]))
    if (with_backward || !o.taken_below) v.push_back(o);
  return v;
}

}  // namespace

TEST(OrderRule, TieVerdictForEitherHypothesis) {
  // Forward layouts only: whichever rule made the points, ties cannot tell the two apart.
  for (bool lower : {false, true}) {
    const auto obs = made_by_minority(lower, false);
    const json t = tie_verdict(obs);
    EXPECT_EQ(t["verdict"], "undecided");
    EXPECT_EQ(t["tie_points"], 6);  // g=16 at three positions, two sides
    EXPECT_EQ(t["tie_points_taken_below"], 0);
    EXPECT_EQ(t["fallthrough_first"], 6);
    EXPECT_EQ(t["lower_first"], 6);
    EXPECT_EQ(t["sentence"].get<std::string>().rfind("undecided: at every tie point the fall-through side is also", 0), 0u);
    const RuleFit fit = fit_order_rule(obs);
    EXPECT_EQ(order_rules()[fit.best].id, "minority_first_tie_fallthrough");  // listed first
    EXPECT_EQ(fit.tied, std::vector<std::size_t>{7});
  }
  // Both layouts, ties to the fall-through side.
  json t = tie_verdict(made_by_minority(false, true));
  EXPECT_EQ(t["verdict"], "fallthrough");
  EXPECT_EQ(t["tie_points"], 12);
  EXPECT_EQ(t["tie_points_taken_below"], 6);
  EXPECT_EQ(t["fallthrough_first"], 12);
  EXPECT_EQ(t["lower_first"], 6);
  // Both layouts, ties to the lower address.
  t = tie_verdict(made_by_minority(true, true));
  EXPECT_EQ(t["verdict"], "lower_address");
  EXPECT_EQ(t["fallthrough_first"], 6);
  EXPECT_EQ(t["lower_first"], 12);
  // Mixed: one backward tie flipped to the fall-through side: neither holds everywhere.
  auto mixed = made_by_minority(true, true);
  for (auto& o : mixed)
    if (o.taken_below && mask_size(o.group_mask) == 16) {
      o.first = o.first == "group" ? "rest" : "group";
      break;
    }
  t = tie_verdict(mixed);
  EXPECT_EQ(t["verdict"], "undecided");
  EXPECT_EQ(t["sentence"].get<std::string>().rfind("undecided: neither", 0), 0u);
  EXPECT_EQ(tie_verdict({})["verdict"], "undecided");
}

TEST(OrderRule, TiesAndEmptyInput) {
  // One point where two rules agree: both fit, the first listed wins, the other is named.
  const std::vector<OrderObservation> one{{0x1u, 0xffffffffu, "fallthrough", "group", "g=1 low fallthrough"}};
  const RuleFit fit = fit_order_rule(one);
  EXPECT_EQ(fit.best, 0u);
  EXPECT_FALSE(fit.tied.empty());
  EXPECT_NE(rule_sentence(fit, one).find("; equally consistent: "), std::string::npos);
  const RuleFit none = fit_order_rule({});
  EXPECT_EQ(rule_sentence(none, {}), "no points with a known first side and fall-through side: no rule fitted");
  EXPECT_TRUE(rule_summary(none, {})["rule_id"].is_null());
}

TEST(OrderRule, BadObservationsAreRefused) {
  EXPECT_THROW(fit_order_rule({{0x1u, 0xffffffffu, "sideways", "group", "x"}}), std::invalid_argument);
  EXPECT_THROW(fit_order_rule({{0x1u, 0xffffffffu, "taken", "both", "x"}}), std::invalid_argument);
  EXPECT_THROW(fit_order_rule({{0xffffffffu, 0xffffffffu, "taken", "group", "x"}}), std::invalid_argument);
}
