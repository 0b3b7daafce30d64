// The path-scheduling-order rule, fitted to the order probe's points by code (not stated by hand). Each
// candidate rule predicts which side of a two-sided branch runs first from what the hardware can
// see: how many lanes are active on each side, which side is the branch's fall-through and which
// side lies at the lower address (both from the binary's SASS), which side holds lane 0 or lane 31. Every candidate is scored on every point;
// the one with the fewest exceptions becomes summary.rule, a sentence written from the counts with
// its exceptions named, and the counts of all candidates are reported beside it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench {

// One point: which side ran first, and what each rule may look at.
struct OrderObservation {
  std::uint32_t group_mask = 0;
  std::uint32_t lanes = 0xffffffffu;  // the lanes that took part (the rest = lanes & ~group_mask)
  std::string group_side;             // "fallthrough" | "taken": where the group's arm is
  std::string first;                  // "group" | "rest"
  std::string label;                  // names the point in the exception list, e.g. "g=16 low taken bssy"
  // The branch's taken side lies at a LOWER address than its fall-through side (a backward branch,
  // the order probe's bssy_backward kernel); false: the fall-through side is the lower one.
  bool taken_below = false;
  std::string site;  // the branch site (the kernel: order_form), for the ties per site
};

struct OrderRule {
  std::string id;        // "minority_first_tie_fallthrough"
  std::string sentence;  // "the side with fewer active lanes runs first; on ties the fall-through side"
  std::function<std::string(const OrderObservation&)> predict;  // "group" | "rest"
};
// The candidates, in the order ties between them are broken. Where every point has its fall-through
// side at the lower address, "fall-through" and "lower address" rules predict alike and tie.
const std::vector<OrderRule>& order_rules();

struct RuleScore {
  std::string id, sentence;
  int agree = 0;
  std::vector<std::size_t> exceptions;  // indices of the observations it predicts wrongly
};

struct RuleFit {
  std::vector<RuleScore> scores;  // one per candidate, in order_rules() order
  std::size_t best = 0;           // fewest exceptions (the first such candidate)
  std::vector<std::size_t> tied;  // the other candidates with as few exceptions
  std::size_t points = 0;
};

// Throws std::invalid_argument on an observation whose group_side or first is not one of the
// values above, or whose group or rest is empty.
RuleFit fit_order_rule(const std::vector<OrderObservation>& obs);

// "the side with fewer active lanes runs first; on ties the fall-through side: 118 of 120 points;
// exceptions: g=1 high taken bssy (rest first), ..." (or "..., no exceptions"; "no points" when
// there are none).
std::string rule_sentence(const RuleFit& fit, const std::vector<OrderObservation>& obs);

// The summary block: rule (the sentence), rule_id, rule_exceptions (labels), rules_equally_consistent
// (ids), rules[] {id, rule, agree, exceptions, exception_points}, points_fitted.
json rule_summary(const RuleFit& fit, const std::vector<OrderObservation>& obs);

// Ties (as many active lanes on each side): do they go to the fall-through side or to the side at
// the lower address? The two hypotheses differ only at ties in a layout with the taken side below
// (taken_below), so without one the answer is "undecided". {verdict: "fallthrough" |
// "lower_address" | "undecided", sentence, tie_points, tie_points_taken_below, fallthrough_first,
// lower_first} (counts over the tie points: how many ran the fall-through side first, how many the
// lower-address side). "undecided" also when neither holds at every tie. by_site: the same counts per
// branch site (OrderObservation::site) {tie_points, tie_points_taken_below, fallthrough_first,
// lower_first}; sites_taken_below: how many sites have a tie point with the taken side below (the
// independent sites the verdict rests on).
json tie_verdict(const std::vector<OrderObservation>& obs);

}  // namespace divbench
