#include "divbench/summary/kway_fit.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace divbench {

int placement_of(const TimedPoint& p) {
  if (p.axes.contains("placement")) return p.axes["placement"].get<int>();  // the declared axis
  return p.extra.contains("placement") ? p.extra["placement"].get<int>() : 0;  // the kernel's, as timed
}

void add_kway_fit_summary(ResultRecord& r) {
  std::sort(r.points.begin(), r.points.end(), [](const TimedPoint& a, const TimedPoint& b) {
    return placement_of(a) != placement_of(b) ? placement_of(a) < placement_of(b) : a.k < b.k;
  });
  std::map<int, std::vector<const TimedPoint*>> by_placement;
  std::map<double, std::vector<double>> by_k;
  for (const auto& p : r.points) {
    by_placement[placement_of(p)].push_back(&p);
    by_k[p.k].push_back(p.cycles.median);
  }
  if (by_k.size() < 2) return;

  std::vector<double> s_values;
  r.fit_placements = json::array();
  for (const auto& [placement, pts] : by_placement) {
    std::vector<double> x, y;
    for (const TimedPoint* p : pts) {
      x.push_back(p->k);
      y.push_back(p->cycles.median);
    }
    if (x.size() < 2) continue;
    const LinearFit f = fit_linear(x, y);
    s_values.push_back(f.s);
    json fp = to_json(f);
    fp.erase("residuals");
    fp.erase("model");
    json entry{{"placement", placement}};
    entry.update(fp);
    r.fit_placements.push_back(entry);
  }

  std::vector<double> x, y;
  for (const auto& [k, v] : by_k) {
    x.push_back(k);
    y.push_back(median(v));
  }
  r.fit = fit_linear(x, y);
  r.has_fit = true;
  const double measured = y.back() / y.front();
  const double fitted = r.fit.predict(x.back()) / r.fit.predict(x.front());
  const std::string key = "ratio_" + std::to_string(static_cast<int>(x.back())) + "_over_" +
                          std::to_string(static_cast<int>(x.front()));
  const Spread s = s_values.empty() ? Spread{r.fit.s, r.fit.s, r.fit.s, 0} : spread_of(s_values);
  r.summary[key] = measured;
  r.summary["fitted_" + key] = fitted;
  r.summary["s_cycles_per_path"] = s.median;
  r.summary["c_cycles"] = r.fit.c;
  r.summary["c_over_s"] = r.fit.s != 0 ? r.fit.c / r.fit.s : 0.0;
  r.summary["r2"] = r.fit.r2;
  r.summary["superlinear"] = r.fit.quadratic.superlinear;
  r.summary["layout_placements"] = s_values.size();
  r.summary["s_layout_min"] = s.min;
  r.summary["s_layout_max"] = s.max;
  r.summary["s_layout_spread_rel"] = s.rel;
}

}  // namespace divbench
