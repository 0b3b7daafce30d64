#include "experiments/cost/summary.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <stdexcept>

#include "divbench/core/fit.hpp"
#include "divbench/core/stats.hpp"
#include "divbench/summary/spread.hpp"

namespace divbench {

CostFit fit_cost(const std::vector<CostSample>& samples) {
  std::set<double> ns, ks;
  for (const auto& s : samples) {
    ns.insert(s.n);
    ks.insert(s.k);
  }
  if (ns.size() < 2 || ks.size() < 2)
    throw std::invalid_argument("cost fit: need at least two values of n and two of k");
  std::vector<double> kn, k, one, y;
  for (const auto& s : samples) {
    kn.push_back(s.k * s.n);
    k.push_back(s.k);
    one.push_back(1.0);
    y.push_back(s.cycles);
  }
  const MultiFit m = fit_least_squares({kn, k, one}, y);
  CostFit f;
  f.a = m.beta[0];
  f.b = m.beta[1];
  f.c = m.beta[2];
  f.a_se = m.std_error[0];
  f.b_se = m.std_error[1];
  f.c_se = m.std_error[2];
  f.r2 = m.r2;
  f.max_rel_residual = m.max_rel_residual;
  f.n_points = samples.size();
  f.b_direct = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x0, y0;
  for (const auto& s : samples)
    if (s.n == 0) {
      x0.push_back(s.k);
      y0.push_back(s.cycles);
    }
  std::set<double> k0(x0.begin(), x0.end());
  if (k0.size() >= 2) f.b_direct = fit_linear(x0, y0).s;
  return f;
}

json to_json(const CostFit& f) {
  return json{{"a", f.a},       {"b", f.b},       {"c", f.c},     {"a_se", f.a_se},
              {"b_se", f.b_se}, {"c_se", f.c_se}, {"r2", f.r2},   {"max_rel_residual", f.max_rel_residual},
              {"b_direct", std::isfinite(f.b_direct) ? json(f.b_direct) : json(nullptr)},
              {"points", f.n_points}};
}

json cost_spread_json(const std::vector<CostFit>& fits, const char* a_key, const char* b_key, const char* c_key,
                      const char* r2_key) {
  json j = json::object();
  if (fits.empty()) return j;
  auto put = [&](const char* key, double CostFit::*field) {
    std::vector<double> v;
    for (const auto& f : fits) v.push_back(f.*field);
    put_spread(j, key, v);
  };
  put(a_key, &CostFit::a);
  put(b_key, &CostFit::b);
  put(c_key, &CostFit::c);
  put(r2_key, &CostFit::r2);
  return j;
}

}  // namespace divbench

namespace divbench {

std::optional<double> slope_in_k(const std::vector<std::pair<double, double>>& points) {
  std::vector<double> k, y;
  for (const auto& [x, c] : points) {
    k.push_back(x);
    y.push_back(c);
  }
  if (std::set<double>(k.begin(), k.end()).size() < 2) return std::nullopt;
  return fit_linear(k, y).s;
}

bool cost_fit_linear(const CostFit& f) { return f.max_rel_residual <= kCostLinearMaxRelResidual && f.b > 0; }

namespace {

// put_spread, and "<key>_se": the median of the standard errors (null when `v` is empty).
void put_spread_se(json& j, const std::string& key, const std::vector<double>& v, const std::vector<double>& se) {
  put_spread(j, key, v);
  j[key + "_se"] = v.empty() ? json(nullptr) : json(median(se));
}

}  // namespace

json cost_body_json(const std::vector<PlacementCost>& fits) {
  if (fits.empty()) throw std::invalid_argument("cost_body_json: no placements");
  std::vector<CostFit> div;
  std::vector<double> se_a, b_direct, b, b_se, loop, loop_se, excess, excess_se;
  std::vector<double> reads, branch, branch_se;
  bool linear = true;
  std::string why;
  json per_placement = json::array();
  for (const auto& pc : fits) {
    const CostFit& f = pc.divergent;
    div.push_back(f);
    json fp = to_json(f);
    fp["placement"] = pc.placement;
    if (!cost_fit_linear(f)) {
      linear = false;
      if (why.empty())
        why = "placement " + std::to_string(pc.placement) + ": max relative residual " +
              std::to_string(f.max_rel_residual) + ", b " + std::to_string(f.b) + " (linear: residual <= " +
              std::to_string(kCostLinearMaxRelResidual) + " and b > 0)";
    }
    se_a.push_back(f.a_se);
    if (std::isfinite(f.b_direct)) b_direct.push_back(f.b_direct);
    b.push_back(f.b);
    b_se.push_back(f.b_se);
    if (pc.control) {
      const CostFit& c = *pc.control;
      if (!cost_fit_linear(c)) {
        linear = false;
        if (why.empty()) why = "control at placement " + std::to_string(pc.placement) + " not linear in n";
      }
      fp["control"] = to_json(c);
      fp["b_loop"] = c.b;
      fp["b_divergence"] = f.b - c.b;
      fp["b_divergence_se"] = std::hypot(f.b_se, c.b_se);
      loop.push_back(c.b);
      loop_se.push_back(c.b_se);
      excess.push_back(f.b - c.b);
      excess_se.push_back(std::hypot(f.b_se, c.b_se));
      if (pc.slot_q_slope && pc.slot_0_slope) {
        const double r = *pc.slot_q_slope - *pc.slot_0_slope;
        fp["slot_q_slope"] = *pc.slot_q_slope;
        fp["slot_0_slope"] = *pc.slot_0_slope;
        fp["b_param_reads"] = r;
        fp["b_branch"] = f.b - c.b - r;
        reads.push_back(r);
        branch.push_back(f.b - c.b - r);
        branch_se.push_back(std::hypot(f.b_se, c.b_se));
      }
    }
    per_placement.push_back(fp);
  }
  json j = json::object();
  if (linear) {
    j.update(cost_spread_json(div, "a", "b", "c", "r2"));
    j["a_se"] = median(se_a);
  } else {
    for (const char* key : {"a", "b", "c", "r2"}) put_spread(j, key, {});
    j["a_se"] = nullptr;
    b.clear();  // the b split is published only where the fits are linear
    loop.clear();
    excess.clear();
    reads.clear();
    branch.clear();
  }
  j["linear_in_n"] = linear;
  if (!linear) j["not_linear"] = why;
  j["b_direct"] = b_direct.empty() ? json(nullptr) : json(median(b_direct));
  put_spread_se(j, "b_cycles_per_path", b, b_se);
  put_spread_se(j, "b_loop_cycles_per_path", loop.size() == fits.size() ? loop : std::vector<double>{}, loop_se);
  put_spread_se(j, "b_divergence_cycles_per_path", excess.size() == fits.size() ? excess : std::vector<double>{},
                excess_se);
  const auto every = [&](const std::vector<double>& v) { return v.size() == fits.size() ? v : std::vector<double>{}; };
  put_spread(j, "b_param_reads_cycles_per_path", every(reads));
  put_spread_se(j, "b_branch_cycles_per_path", every(branch), branch_se);
  j["placements"] = per_placement;
  return j;
}

}  // namespace divbench
