// The loop-cost model on divbench's own result documents: the k-way kernels' work loops by body
// (kway_body_needles, body_work_loops), fits from a --sweep cost result or from k sweeps, and the
// out-of-sample validation against a --sweep loops result (loop_cost.hpp).
#include "divbench/model/loop_cost.hpp"
#include "loop_cost_detail.hpp"
#include "divbench/kernels/kway_names.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/model/kernel_facts.hpp"

namespace divbench::model {

using namespace sass;

std::vector<std::string> kway_body_needles(const std::string& body) {
  return {"kway_kernel", kway_names::mangled_body(body) + "E"};  // the kway folder spells the names
}

std::vector<LoopFacts> body_work_loops(const json& facts, int sm, const std::string& body) {
  std::vector<LoopFacts> out;
  auto fns = find_functions(facts, sm, kway_body_needles(body));
  // Name order with shorter names first: placement 0, 1, ... (the Pad is the only difference).
  std::sort(fns.begin(), fns.end(), [](const json* a, const json* b) {
    const std::string x = (*a)["name"].get<std::string>(), y = (*b)["name"].get<std::string>();
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  for (const json* f : fns) {
    if (!f->contains("work_loop") || (*f)["work_loop"].is_null())
      throw UsageError("kway_kernel<" + body + "> (sm_" + std::to_string(sm) + "): no single work loop in its timed region");
    const int id = static_cast<int>(integer_in((*f)["work_loop"], 0, 1 << 24, "kernel facts: work_loop"));
    out.push_back(loop_from_json((*f)["loops"].at(static_cast<std::size_t>(id))));
  }
  if (out.empty()) throw UsageError("no kway_kernel<" + body + "> for sm_" + std::to_string(sm) + " in the kernel facts");
  return out;
}

namespace {

int device_sm(const json& result, const std::string& what) {
  try {
    const auto& d = result.at("device");
    if (d.contains("cc_major")) return static_cast<int>(integer_in(d.at("cc_major"), 1, 99, what + ": device.cc_major") * 10 + integer_in(d.at("cc_minor"), 0, 9, what + ": device.cc_minor"));
    if (const int sm = sm_of_cc(d.at("cc").get<std::string>())) return sm;
  } catch (const json::exception& e) {  // e.what(): the path of the key that is missing or wrong
    throw UsageError(what + ": no device compute capability (device.cc): " + e.what());
  }
  throw UsageError(what + ": device.cc is not MAJOR.MINOR");
}

// A difference of cycles per iteration to the whole cycle when it lies within 0.01 of one: a loop's
// steady state is a whole number of cycles, the rest (~1e-4) is the timer's noise.
double whole_cycles(double d) { return std::fabs(d - std::round(d)) < 0.01 ? std::round(d) : d; }

json facts_source(const json& facts, const std::string& facts_path) {
  json s{{"kernel_facts", facts_path}};
  if (facts.contains("provenance")) s["kernel_facts_git"] = facts["provenance"].value("git", "");
  return s;
}

}  // namespace

CostFit fit_from_cost_result(const json& cost, const std::string& cost_path, const json& facts,
                             const std::string& facts_path) {
  const int sm = device_sm(cost, cost_path);
  if (!cost.contains("summary") || !cost["summary"].contains("bodies") || !cost["summary"]["bodies"].is_array())
    throw UsageError(cost_path + ": no summary.bodies[] (a --sweep cost result)");
  std::vector<MeasuredLoop> measured;
  std::size_t index = 0;
  for (const auto& b : cost["summary"]["bodies"]) {
    const std::string where = "/summary/bodies/" + std::to_string(index++);  // the key path, as the json library names it
    if (b.contains("linear_in_n") && b["linear_in_n"] == false) continue;  // no a published: not linear in n
    if (!b.contains("body") || !b.contains("a") || !b["a"].is_number())
      throw UsageError(cost_path + ": (" + where + ") summary.bodies[] entry without body and numeric a");
    const double a = b["a"].get<double>();
    if (!std::isfinite(a) || a <= 0) throw UsageError(cost_path + ": body " + b["body"].get<std::string>() + " has a <= 0");
    const std::string body = b["body"].get<std::string>();
    measured.push_back({body, a, body_work_loops(facts, sm, body).front()});
  }
  json src = facts_source(facts, facts_path);
  src["measured"] = cost_path;
  src["measured_quantity"] = "summary.bodies[].a of --sweep cost (least-squares a of T(k,n) = k(an+b)+c)";
  if (cost.contains("device")) src["device"] = cost["device"].value("name", "");
  const json& p = cost.contains("provenance") ? cost["provenance"] : cost;
  src["measured_git"] = p.value("git", "");
  src["measured_created"] = p.value("created", "");
  CostFit fit = fit_constants(measured, sm, src);
  // D: what one divergent branch execution costs beyond its instructions. At k = 1 no branch of the
  // k-way kernel diverges, at k = 2 the branches of both paths do; its no-divergence control runs the
  // same steps without diverging. So (T(2) - T(1)) of the divergent kernel minus the same step of the
  // control, halved, per (body, placement, n) series of the linear bodies; the median over the series.
  // (b_divergence, the slope difference, also holds the constant-cache steps at k = 4 and 20 that only
  // the k-way kernel's parameter reads take: docs/dynamic.md.)
  if (cost.contains("points") && cost["points"].is_array()) {
    std::map<std::tuple<std::string, int, long long, std::string, int>, double> t;
    std::set<std::string> linear;
    for (const auto& b : cost["summary"]["bodies"])
      if (b.contains("body") && (!b.contains("linear_in_n") || b["linear_in_n"] != false)) linear.insert(b["body"].get<std::string>());
    for (const auto& pt : cost["points"]) {
      if (!pt.contains("axes") || !pt.contains("median_cycles") || !pt["median_cycles"].is_number()) continue;
      const json& a = pt["axes"];
      if (!a.contains("body") || !a.contains("placement") || !a.contains("n") || !a.contains("region") || !a.contains("k")) continue;
      t[{a["body"].get<std::string>(), static_cast<int>(integer_in(a["placement"], 0, 1 << 24, "cost point placement")), integer_in(a["n"], 0, std::int64_t{1} << 40, "cost point n"), a["region"].get<std::string>(),
         static_cast<int>(integer_in(a["k"], 0, 1 << 24, "cost point k"))}] = pt["median_cycles"].get<double>();
    }
    std::vector<double> steps;
    for (const auto& [key, v] : t) {
      const auto& [body, placement, n, region, k] = key;
      if (region != "divergent" || k != 1 || !linear.count(body)) continue;
      const auto d2 = t.find({body, placement, n, "divergent", 2});
      const auto c1 = t.find({body, placement, n, "control", 1});
      const auto c2 = t.find({body, placement, n, "control", 2});
      if (d2 == t.end() || c1 == t.end() || c2 == t.end()) continue;
      steps.push_back(0.5 * ((d2->second - v) - (c2->second - c1->second)));
    }
    if (!steps.empty()) {
      std::sort(steps.begin(), steps.end());
      const std::size_t m = steps.size() / 2;
      fit.constants.divergent_path = steps.size() % 2 ? steps[m] : 0.5 * (steps[m - 1] + steps[m]);
      fit.constants.divergent_path_series = static_cast<int>(steps.size());
      fit.constants.divergent_path_min = steps.front();
      fit.constants.divergent_path_max = steps.back();
    }
  }
  // The placement band: each fitted body's a at each placement against the prediction from that
  // placement's own work loop (the kernels differ only by their placement filler).
  std::optional<double> lo, hi;
  std::optional<int> excess_from;
  json residuals = json::array();
  for (const auto& b : cost["summary"]["bodies"]) {
    if (!b.contains("placements") || !b["placements"].is_array()) continue;
    const std::string body = b.value("body", "");
    const auto used = std::find_if(fit.bodies.begin(), fit.bodies.end(),
                                   [&](const BodyFit& f) { return f.body == body && f.used; });
    if (used == fit.bodies.end()) continue;
    const std::vector<LoopFacts> loops = body_work_loops(facts, sm, body);
    for (const auto& pl : b["placements"]) {
      const int placement = pl.value("placement", -1);
      if (placement < 0 || placement >= static_cast<int>(loops.size()) || !pl.contains("a") || !pl["a"].is_number())
        continue;
      const LoopFacts& loop = loops[static_cast<std::size_t>(placement)];
      const CostPrediction pred = predict_loop_cost(loop, fit.constants);
      if (!pred.a) continue;
      const double r = whole_cycles(pl["a"].get<double>() - *pred.a);
      const int offset = static_cast<int>(loop.header % kFetchBlockBytes);
      lo = lo ? std::min(*lo, r) : r;
      hi = hi ? std::max(*hi, r) : r;
      if (r >= 1) excess_from = std::min(excess_from.value_or(kFetchBlockBytes), offset / 16 * 16);
      residuals.push_back(json{{"body", body}, {"placement", placement}, {"measured", pl["a"]}, {"predicted", *pred.a},
                               {"loop_start", loop.header}, {"fetch_block_offset", offset}});
    }
  }
  if (lo && hi) {
    fit.constants.band_below = std::max(0.0, -*lo);
    fit.constants.band_above = std::max(0.0, *hi);
    fit.constants.excess_from_offset = excess_from;  // none without a whole-cycle excess: the band everywhere
    fit.constants.source["placement_residuals"] = residuals;
  }
  return fit;
}

CostFit fit_from_kway_results(const std::vector<json>& kway, const std::vector<std::string>& paths, const json& facts,
                              const std::string& facts_path) {
  if (kway.empty()) throw UsageError("kernels fit: no --kway results");
  const int sm = device_sm(kway.front(), paths.front());
  std::vector<MeasuredLoop> measured;
  std::map<std::string, LoopFacts> loops;
  json files = json::array(), gits = json::array();
  for (std::size_t i = 0; i < kway.size(); ++i) {
    const json& r = kway[i];
    if (device_sm(r, paths[i]) != sm) throw UsageError(paths[i] + ": another architecture than " + paths.front());
    double s = 0, n = 0;
    std::string body;
    try {
      body = r.at("config").at("body").get<std::string>();
      n = r.at("config").at("iters").get<double>();
      s = r.at("fit").at("s").get<double>();
    } catch (const json::exception& e) {  // e.what(): the path of the key that is missing or wrong
      throw UsageError(paths[i] + ": not a --sweep k result (config.body, config.iters, fit.s): " + e.what());
    }
    if (!(n > 0) || !(s > 0) || !std::isfinite(s)) throw UsageError(paths[i] + ": fit.s or config.iters not positive");
    auto loop = loops.find(body);  // once per body: the facts are searched per body, not per file
    if (loop == loops.end()) loop = loops.emplace(body, body_work_loops(facts, sm, body).front()).first;
    measured.push_back({body, s / n, loop->second});
    files.push_back(paths[i]);
    gits.push_back(r.value("git", ""));
  }
  json src = facts_source(facts, facts_path);
  src["measured"] = files;
  src["measured_git"] = gits;
  src["measured_quantity"] =
      "provisional: a ~ s/n from --sweep k results (fit.s at config.iters = n), which still includes b/n";
  if (kway.front().contains("device")) src["device"] = kway.front()["device"].value("name", "");
  return fit_constants(measured, sm, src);
}


json validate_loops(const json& loops_result, const std::string& loops_path, const json& facts, const CostConstants& c,
                    const std::function<std::string(const std::string&, int)>& needle) {
  if (loops_result.value("experiment", "") != "loops" || !loops_result.contains("summary") ||
      !loops_result["summary"].contains("loops") || !loops_result["summary"]["loops"].is_array())
    throw UsageError(loops_path + ": not a --sweep loops result (summary.loops[])");
  const int sm = device_sm(loops_result, loops_path);
  json rows = json::array();
  std::vector<double> errs;
  int within3 = 0, inside = 0, goal = 0;
  double widest = 0, beyond = 0;
  for (const auto& m : loops_result["summary"]["loops"]) {
    std::string body;
    int placement = 0;
    double measured = 0;
    try {
      body = m.at("body").get<std::string>();
      placement = static_cast<int>(integer_in(m.at("placement"), 0, 1 << 24, loops_path + ": summary.loops[].placement"));
      measured = m.at("a").get<double>();
    } catch (const json::exception& e) {  // e.what(): the path of the key that is missing or wrong
      throw UsageError(loops_path + ": summary.loops[] entry without body, placement and a: " + e.what());
    }
    const auto fns = find_functions(facts, sm, {needle(body, placement)});
    if (fns.size() != 1 || !fns.front()->contains("work_loop") || (*fns.front())["work_loop"].is_null())
      throw UsageError("validation loop " + body + " placement " + std::to_string(placement) + ": " +
                       std::to_string(fns.size()) + " functions with a work loop in the facts for sm_" +
                       std::to_string(sm) + " (want 1)");
    const json& f = *fns.front();
    const LoopFacts loop = loop_from_json(f["loops"].at(static_cast<std::size_t>(integer_in(f["work_loop"], 0, 1 << 24, "kernel facts: work_loop"))));
    const CostPrediction pred = predict_loop_cost(loop, c);
    const auto interval = prediction_interval(pred, c, loop.header);
    json row{{"body", body}, {"placement", placement}, {"measured", measured}, {"loop_start", loop.header},
             {"instructions", loop.instruction_count()},
             {"fetch_block_offset", loop.header % kFetchBlockBytes},
             {"excess_region", in_excess_region(c, loop.header)}};
    if (pred.a && measured > 0) {
      const double rel = *pred.a / measured - 1;
      const bool in = measured >= interval->first - 1e-9 && measured <= interval->second + 1e-9;
      row.update(json{{"predicted", *pred.a},
                      {"a_min", interval->first},
                      {"a_max", interval->second},
                      {"rel_err", rel},
                      {"in_interval", in}});
      errs.push_back(std::fabs(rel));
      within3 += std::fabs(rel) <= 0.03;
      inside += in;
      // The goal: within 3% of the point prediction, or inside an interval no wider than 8%.
      goal += std::fabs(rel) <= 0.03 || (in && (interval->second - interval->first) / *pred.a <= 0.08);
      // How far outside its interval the measurement lay, relative to the nearer end (0 inside).
      const double outside = measured < interval->first ? (interval->first - measured) / interval->first
                             : measured > interval->second ? (measured - interval->second) / interval->second
                                                           : 0.0;
      beyond = std::max(beyond, outside);
      widest = std::max(widest, (interval->second - interval->first) / *pred.a);
    } else {
      row.update(json{{"predicted", nullptr}, {"a_min", nullptr}, {"a_max", nullptr}, {"rel_err", nullptr},
                      {"in_interval", nullptr}, {"status", pred.status}});
    }
    rows.push_back(row);
  }
  json out{{"validation", rows}, {"oos_points", errs.size()}};
  if (errs.empty()) {
    out["oos_median_abs_err"] = nullptr;
    out["oos_max_abs_err"] = nullptr;
  } else {
    std::vector<double> sorted = errs;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    out["oos_median_abs_err"] = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    out["oos_max_abs_err"] = sorted.back();
  }
  // The address rule out of sample: a placement whose a lies a cycle or more above the body's lowest a
  // over its placements paid the placement excess; how many of those start in the excess region, and
  // how many points the region holds.
  std::map<std::string, double> lowest;
  for (const auto& r : rows) {
    const std::string b = r["body"].get<std::string>();
    const double m = r["measured"].get<double>();
    lowest[b] = lowest.count(b) ? std::min(lowest[b], m) : m;
  }
  int excess = 0, excess_in = 0, flagged = 0;
  for (const auto& r : rows) {
    const bool paid = whole_cycles(r["measured"].get<double>() - lowest[r["body"].get<std::string>()]) >= 1;
    const bool in = r["excess_region"].get<bool>();
    excess += paid;
    excess_in += paid && in;
    flagged += in;
  }
  out["placement_excess_points"] = excess;
  out["placement_excess_in_region"] = excess_in;
  out["excess_region_points"] = flagged;
  out["oos_within_3pct"] = within3;
  out["oos_goal_points"] = goal;  // within 3%, or inside an interval no wider than 8%
  out["oos_goal_met"] = !errs.empty() && goal == static_cast<int>(errs.size());
  out["oos_in_interval"] = inside;
  out["oos_max_interval_rel_width"] = widest;
  out["oos_max_outside_interval_rel"] = beyond;  // the model's error beyond its placement interval
  json src{{"measured", loops_path}};
  const json& p = loops_result.contains("provenance") ? loops_result["provenance"] : loops_result;
  src["measured_git"] = p.value("git", json(""));
  src["measured_created"] = p.value("created", json(""));
  src["note"] = "loops the constants were not fitted on (experiments/loops/), each predicted from its own placement's SASS";
  out["validation_source"] = src;
  return out;
}

}  // namespace divbench::model
