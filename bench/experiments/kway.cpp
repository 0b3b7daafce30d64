// --sweep k: one warp, k = 1..32 equal paths; T(k) = s*k + c fitted over the medians.
#include "divbench/core/errors.hpp"
#include "harness/experiment.hpp"
#include "harness/kway_point.hpp"
#include "harness/quality.hpp"

namespace divbench {
namespace {

std::vector<int> ks_or_default(const RunOptions& o) {
  if (!o.ks.empty()) return o.ks;
  std::vector<int> ks;
  for (int k = 1; k <= 32; ++k) ks.push_back(k);
  return ks;
}

Experiment kway_experiment() {
  Experiment e;
  e.name = "kway";
  e.aliases = {"k"};
  e.kind = "sweep";
  e.help = "k-way divergence: one warp, k equal paths, T(k) = s*k + c (the paper's Figure 1)";
  e.validate = [](const RunOptions& o) {
    parse_body(o.body);
    parse_lane_map(o.map);
    if (ks_or_default(o).size() < 2) throw UsageError("--sweep k needs at least two values of k to fit T(k)");
  };
  e.result_name = [](const RunOptions& o) {
    std::string n = "kway";
    if (o.body != "fma_chain") n += "_" + o.body;
    if (o.map != "modulo") n += "_" + o.map;
    return n;
  };
  e.config = [](const RunOptions& o) {
    return json{{"axis", "k"},       {"ks", ks_or_default(o)}, {"reps", o.reps},   {"warmup", o.warmup},
                {"iters", o.iters},  {"body", o.body},         {"map", o.map},     {"seed", o.seed},
                {"blocks", 1},       {"threads_per_block", 32}, {"metrics", o.metrics},
                {"region", "clock64 around the divergent region, after __syncwarp(); median over launches"}};
  };
  e.plan = [](const RunContext& ctx) {
    const RunOptions& o = ctx.opts;
    std::vector<PointSpec> pts;
    for (int k : ks_or_default(o)) {
      KwayPointSpec s;
      s.body = parse_body(o.body);
      s.k = k;
      s.lanes = assign_lanes(parse_lane_map(o.map), k, static_cast<std::uint32_t>(o.iters), o.seed);
      s.plan.warmup = o.warmup;
      s.plan.reps = o.reps;
      pts.push_back(PointSpec{"k:" + std::to_string(k), [s] { return run_kway_point(s); }, kway_launch_once(s),
                              kway_launch_twin(s)});
    }
    return pts;
  };
  e.finalize = [](const RunContext&, ResultRecord& r) {
    std::sort(r.points.begin(), r.points.end(), [](const TimedPoint& a, const TimedPoint& b) { return a.k < b.k; });
    if (r.points.size() < 2) return;
    std::vector<double> x, y;
    for (const auto& p : r.points) {
      x.push_back(p.k);
      y.push_back(p.cycles.median);
    }
    r.fit = fit_linear(x, y);
    r.has_fit = true;
    const TimedPoint& lo = r.points.front();
    const TimedPoint& hi = r.points.back();
    const double measured = hi.cycles.median / lo.cycles.median;
    const double fitted = r.fit.predict(hi.k) / r.fit.predict(lo.k);
    const std::string key = "ratio_" + std::to_string(static_cast<int>(hi.k)) + "_over_" +
                            std::to_string(static_cast<int>(lo.k));
    r.summary[key] = measured;
    r.summary["fitted_" + key] = fitted;
    r.summary["s_cycles_per_path"] = r.fit.s;
    r.summary["c_cycles"] = r.fit.c;
    r.summary["c_over_s"] = r.fit.s != 0 ? r.fit.c / r.fit.s : 0.0;
    r.summary["r2"] = r.fit.r2;
    r.summary["superlinear"] = r.fit.quadratic.superlinear;
    add_quality_summary(r);
  };
  return e;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(kway_experiment);

}  // namespace divbench
