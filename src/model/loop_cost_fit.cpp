// The loop-cost model's fit (loop_cost.hpp, "Fitting"): B (and W where a body needs it) by a grid search
// of the relative error over the measured loops, with leave-one-body-out predictions, and its document.
#include "divbench/model/loop_cost.hpp"
#include "loop_cost_detail.hpp"

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
using detail::constants_json;
using detail::count_waits;
using detail::schedulable;

namespace {

struct Candidate {
  double B = 0, W = 0, err = std::numeric_limits<double>::infinity();
};

// The measurements of one body (one work loop): every file of it. The objective sums
// ((p - a_i) / a_i)^2 over its files = p^2 * S2 - 2p * S1 + N with S1 = sum 1/a_i, S2 = sum 1/a_i^2, so a
// grid point costs one simulation per body, not per file (kernels fit stays linear in its inputs). A
// body measured once keeps the direct form (bit-identical to fitting file by file).
struct BodyGroup {
  const MeasuredLoop* first = nullptr;
  double s1 = 0, s2 = 0;
  int n = 0;
};

std::vector<BodyGroup> group_by_body(const std::vector<const MeasuredLoop*>& used) {
  std::vector<BodyGroup> groups;
  std::map<std::string, std::size_t> index;
  for (const auto* m : used) {
    auto [it, fresh] = index.emplace(m->body, groups.size());
    if (fresh) groups.push_back({m, 0, 0, 0});
    BodyGroup& g = groups[it->second];
    g.s1 += 1 / m->a;
    g.s2 += 1 / (m->a * m->a);
    ++g.n;
  }
  return groups;
}

double objective(const std::vector<BodyGroup>& groups, double B, double W) {
  double e = 0;
  for (const auto& g : groups) {
    const double p = simulate_period(g.first->loop, B, W, 0);
    if (g.n == 1) {
      const double r = (p - g.first->a) / g.first->a;
      e += r * r;
    } else {
      e += std::max(0.0, p * p * g.s2 - 2 * p * g.s1 + g.n);
    }
  }
  return e;
}

// Grid search of B in [0, 64] and, when needed, W in [0, 256]: 1-cycle steps, then 0.1 and 0.01
// around the best point so far.
Candidate search(const std::vector<const MeasuredLoop*>& used, bool need_w) {
  const std::vector<BodyGroup> groups = group_by_body(used);
  Candidate best;
  auto scan = [&](double b0, double b1, double w0, double w1, double step) {
    for (double B = std::max(0.0, b0); B <= b1 + 1e-9; B += step)
      for (double W = std::max(0.0, w0); W <= (need_w ? w1 : 0.0) + 1e-9; W += step) {
        const double e = objective(groups, B, W);
        if (e < best.err - 1e-15) best = {B, W, e};
      }
  };
  scan(0, 64, 0, 256, 1.0);
  for (double step : {0.1, 0.01}) {
    const Candidate c = best;
    scan(c.B - 10 * step, c.B + 10 * step, c.W - 10 * step, c.W + 10 * step, step);
  }
  best.B = std::round(best.B * 100) / 100;
  best.W = std::round(best.W * 100) / 100;
  return best;
}

bool needs_w(const LoopFacts& l) {
  int var = 0, mem = 0;
  count_waits(l, var, mem);
  return var > 0;
}

bool predictable(const LoopFacts& l) {
  if (!schedulable(l, nullptr)) return false;
  int var = 0, mem = 0;
  count_waits(l, var, mem);
  return mem == 0;
}

CostConstants constants_for(const std::vector<const MeasuredLoop*>& used, int sm) {
  CostConstants c;
  c.sm = sm;
  if (used.empty()) return c;
  bool w = false;
  for (const auto* m : used) w = w || needs_w(m->loop);
  const Candidate best = search(used, w);
  c.taken_branch = best.B;
  if (w) c.variable_latency = best.W;
  return c;
}

}  // namespace

CostFit fit_constants(const std::vector<MeasuredLoop>& measured, int sm, const json& source) {
  CostFit fit;
  std::vector<const MeasuredLoop*> used;
  for (const auto& m : measured)
    if (predictable(m.loop) && m.a > 0) used.push_back(&m);
  fit.constants = constants_for(used, sm);
  json src = source;
  json names = json::array();
  for (const auto* m : used) names.push_back(m->body);
  src["bodies_fitted"] = names;
  src["objective"] = "least squares of (predicted - measured) / measured over the bodies fitted";
  fit.constants.source = src;
  // Leave one body out: the constants fitted without any file of this body (computed once per body).
  const std::set<const MeasuredLoop*> used_set(used.begin(), used.end());
  std::map<std::string, CostConstants> loo_by_body;
  for (const auto& m : measured) {
    BodyFit b;
    b.body = m.body;
    b.a = m.a;
    b.used = used_set.count(&m) > 0;
    b.fitted = predict_loop_cost(m.loop, fit.constants);
    if (b.used) {
      auto it = loo_by_body.find(m.body);
      if (it == loo_by_body.end()) {
        std::vector<const MeasuredLoop*> rest;
        for (const auto* u : used)
          if (u->body != m.body) rest.push_back(u);
        it = loo_by_body.emplace(m.body, constants_for(rest, sm)).first;
      }
      b.loo = predict_loop_cost(m.loop, it->second);
    }
    fit.bodies.push_back(std::move(b));
  }
  return fit;
}

namespace {

json rel_err(const std::optional<double>& pred, double a) {
  return pred && a > 0 ? json((*pred - a) / a) : json(nullptr);
}

}  // namespace

json to_json(const CostFit& f) {
  json j = constants_json(f.constants);
  json bodies = json::array();
  for (const auto& b : f.bodies) {
    bodies.push_back(json{{"body", b.body},
                          {"a", b.a},
                          {"fitted", b.used},
                          {"a_predicted", b.fitted.a ? json(*b.fitted.a) : json(nullptr)},
                          {"a_rel_err", rel_err(b.fitted.a, b.a)},
                          {"a_predicted_loo", b.loo.a ? json(*b.loo.a) : json(nullptr)},
                          {"a_rel_err_loo", rel_err(b.loo.a, b.a)},
                          {"a_lower_bound", b.fitted.lower_bound ? json(*b.fitted.lower_bound) : json(nullptr)},
                          {"prediction", to_json(b.fitted)}});
  }
  j["bodies"] = bodies;
  return j;
}

std::string fit_summary(const CostFit& f) {
  std::ostringstream s;
  char buf[256];
  auto num = [](const std::optional<double>& v) {
    char b[32];
    if (!v) return std::string("n/a");
    std::snprintf(b, sizeof b, "%.2f", *v);
    return std::string(b);
  };
  s << "loop-cost model sm_" << f.constants.sm << ": B (taken branch) = " << num(f.constants.taken_branch)
    << " cycles, W (variable latency) = " << num(f.constants.variable_latency) << " cycles\n";
  for (const auto& b : f.bodies) {
    const auto shown = b.fitted.a ? b.fitted.a : b.fitted.lower_bound;
    std::snprintf(buf, sizeof buf, "  %-14s a = %9.3f  predicted %9s (%s)  leave-one-out %9s\n", b.body.c_str(), b.a,
                  num(shown).c_str(), b.fitted.a ? "fitted" : b.fitted.status.c_str(), num(b.loo.a).c_str());
    s << buf;
  }
  return s.str();
}

}  // namespace divbench::model
