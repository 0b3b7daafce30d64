// The path-scheduling-order rule fitted to points (summary.hpp).
#include "experiments/order/summary.hpp"

#include <map>

#include <stdexcept>

#include "divbench/core/lane_group.hpp"

namespace divbench {
namespace {

int group_size(const OrderObservation& o) { return mask_size(o.group_mask & o.lanes); }
int rest_size(const OrderObservation& o) { return mask_size(o.lanes & ~o.group_mask); }
std::string other(const std::string& side) { return side == "group" ? "rest" : "group"; }
// The side ("group" | "rest") whose arm is the fall-through.
std::string fallthrough_side(const OrderObservation& o) { return o.group_side == "fallthrough" ? "group" : "rest"; }

// The side ("group" | "rest") at the lower address: the fall-through side unless the branch is backward.
std::string lower_side(const OrderObservation& o) {
  return o.taken_below ? other(fallthrough_side(o)) : fallthrough_side(o);
}

bool is_tie(const OrderObservation& o) { return group_size(o) == rest_size(o); }

std::string by_size(const OrderObservation& o, bool fewer_first, bool tie_fallthrough) {
  const int g = group_size(o), r = rest_size(o);
  if (g == r) return tie_fallthrough ? fallthrough_side(o) : other(fallthrough_side(o));
  return ((g < r) == fewer_first) ? "group" : "rest";
}

std::string by_size_tie_lower(const OrderObservation& o) {
  const int g = group_size(o), r = rest_size(o);
  if (g == r) return lower_side(o);
  return g < r ? "group" : "rest";
}

std::string holding(const OrderObservation& o, int lane) {
  return mask_has_lane(o.group_mask & o.lanes, lane) ? "group" : "rest";
}

}  // namespace

const std::vector<OrderRule>& order_rules() {
  static const std::vector<OrderRule> v = {
      {"minority_first_tie_fallthrough", "the side with fewer active lanes runs first; on ties the fall-through side",
       [](const OrderObservation& o) { return by_size(o, true, true); }},
      {"minority_first_tie_taken", "the side with fewer active lanes runs first; on ties the taken side",
       [](const OrderObservation& o) { return by_size(o, true, false); }},
      {"majority_first_tie_fallthrough", "the side with more active lanes runs first; on ties the fall-through side",
       [](const OrderObservation& o) { return by_size(o, false, true); }},
      {"fallthrough_first", "the fall-through side runs first", [](const OrderObservation& o) { return fallthrough_side(o); }},
      {"taken_first", "the taken side runs first",
       [](const OrderObservation& o) { return other(fallthrough_side(o)); }},
      {"lane0_first", "the side holding lane 0 runs first", [](const OrderObservation& o) { return holding(o, 0); }},
      {"lane31_first", "the side holding lane 31 runs first", [](const OrderObservation& o) { return holding(o, 31); }},
      {"minority_first_tie_lower", "the side with fewer active lanes runs first; on ties the side at the lower address",
       [](const OrderObservation& o) { return by_size_tie_lower(o); }},
      {"lower_first", "the side at the lower address runs first", [](const OrderObservation& o) { return lower_side(o); }},
  };
  return v;
}

RuleFit fit_order_rule(const std::vector<OrderObservation>& obs) {
  for (const auto& o : obs) {
    if (o.group_side != "fallthrough" && o.group_side != "taken")
      throw std::invalid_argument("fit_order_rule: group_side '" + o.group_side + "' of " + o.label);
    if (o.first != "group" && o.first != "rest") throw std::invalid_argument("fit_order_rule: first '" + o.first + "' of " + o.label);
    if (group_size(o) == 0 || rest_size(o) == 0) throw std::invalid_argument("fit_order_rule: an empty side in " + o.label);
  }
  RuleFit fit;
  fit.points = obs.size();
  for (const auto& rule : order_rules()) {
    RuleScore s{rule.id, rule.sentence, 0, {}};
    for (std::size_t i = 0; i < obs.size(); ++i) {
      if (rule.predict(obs[i]) == obs[i].first) ++s.agree;
      else s.exceptions.push_back(i);
    }
    fit.scores.push_back(std::move(s));
  }
  for (std::size_t i = 1; i < fit.scores.size(); ++i)
    if (fit.scores[i].exceptions.size() < fit.scores[fit.best].exceptions.size()) fit.best = i;
  for (std::size_t i = 0; i < fit.scores.size(); ++i)
    if (i != fit.best && fit.scores[i].exceptions.size() == fit.scores[fit.best].exceptions.size()) fit.tied.push_back(i);
  return fit;
}

std::string rule_sentence(const RuleFit& fit, const std::vector<OrderObservation>& obs) {
  if (fit.points == 0) return "no points with a known first side and fall-through side: no rule fitted";
  const RuleScore& b = fit.scores[fit.best];
  std::string s = b.sentence + ": " + std::to_string(b.agree) + " of " + std::to_string(fit.points) + " points";
  if (b.exceptions.empty()) {
    s += ", no exceptions";
  } else {
    s += "; exceptions: ";
    for (std::size_t k = 0; k < b.exceptions.size(); ++k) {
      const auto& o = obs[b.exceptions[k]];
      s += (k ? ", " : "") + o.label + " (" + o.first + " first)";
    }
  }
  for (std::size_t i : fit.tied) s += "; equally consistent: " + fit.scores[i].sentence;
  return s;
}

json rule_summary(const RuleFit& fit, const std::vector<OrderObservation>& obs) {
  json rules = json::array();
  for (const auto& s : fit.scores) {
    json ex = json::array();
    for (std::size_t i : s.exceptions) ex.push_back(obs[i].label);
    rules.push_back(json{{"id", s.id},
                         {"rule", s.sentence},
                         {"agree", s.agree},
                         {"exceptions", s.exceptions.size()},
                         {"exception_points", ex}});
  }
  json tied = json::array();
  for (std::size_t i : fit.tied) tied.push_back(fit.scores[i].id);
  json j{{"rule", rule_sentence(fit, obs)}, {"points_fitted", fit.points}};
  if (fit.points > 0) {
    j["rule_id"] = fit.scores[fit.best].id;
    j["rule_exceptions"] = rules[fit.best]["exception_points"];
  } else {
    j["rule_id"] = nullptr;
    j["rule_exceptions"] = json::array();
  }
  j["rules_equally_consistent"] = tied;
  j["rules"] = rules;
  return j;
}

json tie_verdict(const std::vector<OrderObservation>& obs) {
  struct Counts {
    int ties = 0, separating = 0, ft_first = 0, lower_first = 0;
    void add(const OrderObservation& o) {
      ++ties;
      separating += o.taken_below ? 1 : 0;
      ft_first += o.first == fallthrough_side(o) ? 1 : 0;
      lower_first += o.first == lower_side(o) ? 1 : 0;
    }
    json to_json() const {
      return json{{"tie_points", ties}, {"tie_points_taken_below", separating}, {"fallthrough_first", ft_first},
                  {"lower_first", lower_first}};
    }
  };
  Counts all;
  std::map<std::string, Counts> sites;
  for (const auto& o : obs) {
    if (!is_tie(o)) continue;
    all.add(o);
    sites[o.site].add(o);
  }
  int sites_below = 0;
  json by_site = json::object();
  for (const auto& [site, c] : sites) {
    by_site[site.empty() ? "(unnamed)" : site] = c.to_json();
    sites_below += c.separating > 0 ? 1 : 0;
  }
  const int ties = all.ties, separating = all.separating, ft_first = all.ft_first, lower_first = all.lower_first;
  const std::string counts = "the fall-through side first at " + std::to_string(ft_first) + " of " +
                             std::to_string(ties) + " ties, the lower-address side at " + std::to_string(lower_first) +
                             " (" + std::to_string(separating) + " of the ties with the taken side below, at " +
                             std::to_string(sites_below) + (sites_below == 1 ? " branch site)" : " branch sites)");
  std::string verdict = "undecided", sentence;
  if (ties == 0) {
    sentence = "no tie points (as many active lanes on each side): ties not measured";
  } else if (separating == 0) {
    sentence = "undecided: at every tie point the fall-through side is also the lower address, so the two "
               "hypotheses predict the same side; " + counts;
  } else if (ft_first == ties) {
    verdict = "fallthrough";
    sentence = "ties go to the fall-through side, not to the lower address: " + counts;
  } else if (lower_first == ties) {
    verdict = "lower_address";
    sentence = "ties go to the side at the lower address, not to the fall-through side: " + counts;
  } else {
    sentence = "undecided: neither the fall-through side nor the lower address ran first at every tie; " + counts;
  }
  json j = all.to_json();
  j["verdict"] = verdict;
  j["sentence"] = sentence;
  j["by_site"] = by_site;
  j["sites_taken_below"] = sites_below;
  return j;
}

}  // namespace divbench
