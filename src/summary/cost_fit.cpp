#include "divbench/summary/cost_fit.hpp"

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "divbench/core/fit.hpp"
#include "divbench/core/stats.hpp"

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
    const Spread s = spread_of(v);
    j[key] = s.median;
    j[std::string(key) + "_min"] = s.min;
    j[std::string(key) + "_max"] = s.max;
  };
  put(a_key, &CostFit::a);
  put(b_key, &CostFit::b);
  put(c_key, &CostFit::c);
  put(r2_key, &CostFit::r2);
  return j;
}

}  // namespace divbench
