#include "experiments/predication/summary.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "divbench/core/stats.hpp"
#include "divbench/summary/iteration_cost.hpp"
#include "divbench/summary/kway_fit.hpp"
#include "divbench/summary/loop_shape.hpp"
#include "divbench/summary/spread.hpp"

namespace divbench {
namespace {

struct Key {
  std::string variant;
  int arms = 0;
  bool operator<(const Key& o) const { return std::tie(variant, arms) < std::tie(o.variant, o.arms); }
};

// One (variant, arms, placement): its per-iteration cost (from the smallest and largest n) and the
// loop's SASS shape recorded with the point.
struct Cost : IterationCost {
  int loops = 1;
  std::optional<LoopShape> shape;
};

using Costs = std::map<Key, std::map<int, Cost>>;  // key -> placement -> cost

Costs per_iteration_costs(const ResultRecord& r) {
  std::map<Key, std::map<int, std::vector<const TimedPoint*>>> by;
  for (const auto& p : r.points)
    if (p.axes.contains("variant") && p.axes.contains("n"))
      by[Key{p.axes["variant"].get<std::string>(), p.axes.value("arms", 0)}][placement_of(p)].push_back(&p);
  Costs out;
  for (const auto& [key, placements] : by)
    for (const auto& [placement, pts] : placements) {
      const std::optional<IterationCost> ic = iteration_cost(pts);
      if (!ic) continue;
      Cost c{*ic, ic->at_n2->extra.value("loops_per_iteration", 1), std::nullopt};
      const json& loop = ic->at_n2->extra.contains("loop") ? ic->at_n2->extra["loop"] : json(nullptr);
      if (loop.is_object() && loop.value("available", true) && loop.contains("instructions"))
        c.shape = loop_shape_from_json(loop);
      out[key][placement] = c;
    }
  return out;
}

// c of `num` over c of `den` at every placement both have.
std::vector<double> paired_ratios(const std::map<int, Cost>& num, const std::map<int, Cost>& den) {
  std::vector<double> out;
  for (const auto& [placement, c] : num) {
    const auto it = den.find(placement);
    if (it != den.end() && it->second.c != 0) out.push_back(c.c / it->second.c);
  }
  return out;
}

std::vector<double> costs_of(const std::map<int, Cost>& m) {
  std::vector<double> v;
  for (const auto& [placement, c] : m) v.push_back(c.c);
  return v;
}

void add_ratio(json& summary, const std::string& key, const std::vector<double>& ratios) {
  if (!ratios.empty()) put_spread(summary, key, ratios);
}

json variant_row(const Key& key, const std::map<int, Cost>& costs, const std::map<int, Cost>* single) {
  json row{{"variant", key.variant}, {"arms", key.arms}, {"placements", costs.size()}};
  row["loops_per_iteration"] = costs.begin()->second.loops;
  row["cycles_per_iter"] = spread_json(costs_of(costs));
  if (single) {
    const auto ratios = paired_ratios(costs, *single);
    if (!ratios.empty()) row["over_single"] = spread_json(ratios);
  }
  // The loop's SASS per run of the loop, and cycles per issued instruction, per placement.
  std::set<std::pair<int, int>> shapes;  // (instructions, stall sum or -1)
  std::vector<double> cpi;
  bool all_shapes = true;
  for (const auto& [placement, c] : costs) {
    if (!c.shape) {
      all_shapes = false;
      continue;
    }
    shapes.insert({c.shape->instructions, c.shape->stall_sum.value_or(-1)});
    cpi.push_back(c.c / (c.shape->instructions * c.loops));
  }
  if (!all_shapes || shapes.empty()) {
    row["sass"] = json{{"available", false}};
    return row;
  }
  const auto& [instructions, stall] = *shapes.begin();
  json sass{{"available", true}, {"same_at_every_placement", shapes.size() == 1}};
  sass["instructions"] = instructions;
  sass["stall_sum"] = stall >= 0 ? json(stall) : json(nullptr);
  if (shapes.size() > 1) {
    json all = json::array();
    for (const auto& [i, s] : shapes) all.push_back(json{{"instructions", i}, {"stall_sum", s >= 0 ? json(s) : json(nullptr)}});
    sass["shapes"] = all;
  }
  sass["instructions_per_iteration"] = instructions * costs.begin()->second.loops;
  row["sass"] = sass;
  row["cycles_per_instruction"] = spread_json(cpi);
  return row;
}

}  // namespace

void add_predication_summary(ResultRecord& r) {
  const Costs costs = per_iteration_costs(r);
  const auto find = [&](const std::string& v, int arms) -> const std::map<int, Cost>* {
    const auto it = costs.find(Key{v, arms});
    return it == costs.end() ? nullptr : &it->second;
  };
  const auto* single = find("single", 1);
  const auto* branchy = find("branchy", 2);
  const auto* pred2 = find("predicated", 2);
  const auto* pred1 = find("predicated", 1);
  json& s = r.summary;
  if (single && branchy) add_ratio(s, "ratio_branchy_over_single", paired_ratios(*branchy, *single));
  if (single && pred2) {
    add_ratio(s, "ratio_predicated_over_single", paired_ratios(*pred2, *single));
    const Spread cs = spread_of(costs_of(*single)), cp = spread_of(costs_of(*pred2));
    const bool enough = single->size() >= 2 && pred2->size() >= 2;
    const bool differs = cp.max < cs.min || cp.min > cs.max;
    s["predicated_differs_from_single_beyond_placement_spread"] = enough ? json(differs) : json(nullptr);
    s["predicated_vs_single"] = json{
        {"test", "the per-iteration costs over the placements do not overlap (max of one < min of the other)"},
        {"single_cycles_per_iter", spread_json(costs_of(*single))},
        {"predicated_cycles_per_iter", spread_json(costs_of(*pred2))},
        {"ratio_range_any_placements", {cp.min / cs.max, cp.max / cs.min}},
        {"placements", {{"single", single->size()}, {"predicated", pred2->size()}}}};
    if (!enough) s["predicated_vs_single"]["note"] = "fewer than two placements: no spread to compare with";
  }
  json variants = json::array(), by_arms = json::object();
  for (const auto& [key, m] : costs) {
    json row = variant_row(key, m, single);
    if (pred1 && key.variant == "predicated") {
      const auto own = paired_ratios(m, *pred1);
      if (!own.empty()) row["over_predicated1"] = spread_json(own);
    }
    if (key.variant == "predicated" && row.contains("over_single"))
      by_arms[std::to_string(key.arms)] = row["over_single"]["median"];
    variants.push_back(row);
  }
  s["variants"] = variants;
  s["predicated_over_single_by_arms"] = by_arms;

  // The equal-shape rule at every placement, from the shapes recorded with the points.
  json problems = json::array();
  bool complete = single != nullptr;
  if (single)
    for (const auto& [placement, c] : *single) {
      if (!c.shape) {
        complete = false;
        continue;
      }
      std::map<int, LoopShape> forms;
      for (const auto& [key, m] : costs) {
        if (key.variant != "predicated") continue;
        const auto it = m.find(placement);
        if (it == m.end()) continue;
        if (!it->second.shape) complete = false;
        else forms[key.arms] = *it->second.shape;
      }
      for (const auto& p : predication_shape_problems(*c.shape, forms))
        problems.push_back("placement " + std::to_string(placement) + ": " + p);
    }
  s["loop_shapes_equal"] = complete ? json(problems.empty()) : json(nullptr);
  s["loop_shape_problems"] = problems;

  json per_iter = json::array();
  for (const auto& [key, m] : costs)
    for (const auto& [placement, c] : m)
      per_iter.push_back(json{{"variant", key.variant},
                              {"arms", key.arms},
                              {"placement", placement},
                              {"cycles_per_iter", c.c},
                              {"iters_per_path", {c.n1, c.n2}},
                              {"median_cycles", {c.t1, c.t2}}});
  s["per_iteration"] = per_iter;
}

std::vector<std::string> predication_shape_problems(const LoopShape& single, const std::map<int, LoopShape>& predicated) {
  std::vector<std::string> out;
  auto one_path = [&](const LoopShape& s, const std::string& who) {
    if (!s.single_path || s.taken_branches != 1)
      out.push_back(who + " (" + s.function + "): the work loop is not one path with one taken branch per iteration");
  };
  one_path(single, "single path");
  const int ffma = single.count("FFMA");
  const int other = single.instructions - ffma;
  if (ffma != 4)
    out.push_back("single path (" + single.function + "): " + std::to_string(ffma) + " FFMA per iteration, want 4");
  for (const auto& [arms, s] : predicated) {
    const std::string who = std::to_string(arms) + "-arm predicated form";
    one_path(s, who);
    if (s.count("FFMA") != 4 * arms)
      out.push_back(who + " (" + s.function + "): " + std::to_string(s.count("FFMA")) + " FFMA per iteration, want " +
                    std::to_string(4 * arms));
    if (s.instructions - s.count("FFMA") != other)
      out.push_back(who + " (" + s.function + "): " + std::to_string(s.instructions - s.count("FFMA")) +
                    " instructions besides the FFMA per iteration, the single path " + std::to_string(other));
  }
  return out;
}

}  // namespace divbench
