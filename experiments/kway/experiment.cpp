// --sweep k: k = 1..32 equal paths in one warp's divergent region; T(k) = s*k + c fitted at every
// code placement; s reported as the median over placements with its spread.
#include "divbench/core/errors.hpp"
#include "harness/common_settings.hpp"
#include "harness/config.hpp"
#include "harness/experiment.hpp"
#include "divbench/summary/kway_fit.hpp"
#include "divbench/summary/quality.hpp"
#include "harness/timed_point.hpp"
#include "experiments/kway/launcher.hpp"

namespace divbench {
namespace {

struct KwayConfig {
  std::vector<int> ks;
  WorkConfig work;
  TimingConfig timing;
  std::vector<int> placements;
  bool metrics = false;
};

KwayConfig parse(const SettingValues& o) {
  KwayConfig c;
  c.work = parse_work(o);
  c.timing = parse_timing(o, c.work.body);
  c.placements = parse_placements(o);
  c.metrics = o.flag("--metrics");
  c.ks = o.ints("--k");
  if (c.ks.size() < 2) throw UsageError("--sweep k needs at least two values of k to fit T(k)");
  return c;
}

json to_json(const KwayConfig& c) {
  json j{{"ks", c.ks}};
  j.update(to_json(c.work));
  j.update(to_json(c.timing));
  j["placements"] = c.placements;
  j["blocks"] = "1 (single) or one per SM (warp-per-sm)";
  j["threads_per_block"] = 32;
  j["metrics"] = c.metrics;
  j["region"] = "clock64 around the divergent region, after __syncwarp(); median over samples";
  return j;
}

std::string result_name(const KwayConfig& c) {
  std::string n = "kway";
  if (c.work.body != Body::fma_chain) n += std::string("_") + body_name(c.work.body);
  if (c.work.map != LaneMap::modulo) n += std::string("_") + lane_map_name(c.work.map);
  return n;
}

std::vector<PointSpec> plan(const KwayConfig& c, const DeviceRecord& dev) {
  std::vector<PointSpec> pts;
  for (int placement : c.placements)
    for (int k : c.ks) {
      const LaneAssignment lanes = assign_lanes(c.work.map, k, c.work.iters, c.work.seed);
      const KwayParams p = make_kway_params(c.work.body, k, lanes);
      const TimedKernel kernel = kway_timed_kernel(c.work.body, p, placement);
      LaneAssignment idle = lanes;
      idle.iters_of_path.fill(0);
      const TimedKernel twin = kway_timed_kernel(c.work.body, make_kway_params(c.work.body, k, idle), placement);
      const TimedRun run{c.timing, std::nullopt, false};
      pts.push_back(timed_point_spec({{"placement", placement}, {"k", k}}, kernel, run, dev, k,
                                     {{"serialized_iters", lanes.total_iters()}}, launch_once(kernel), launch_once(twin)));
      // The same launches as the occupancy sweep's at this k (placement 0): profiled once under --all.
      pts.back().launch_key = kway_launch_key(c.work.body, c.work.map, k, c.work.iters, c.work.seed, placement);
    }
  return pts;
}

void finalize(const KwayConfig&, ResultRecord& r) {
  add_kway_fit_summary(r);
  add_quality_summary(r);
}

ExperimentDef<KwayConfig> kway_experiment() {
  ExperimentDef<KwayConfig> d{"kway",
                              {"k"},
                              "sweep",
                              "k-way divergence: one warp, k equal paths, T(k) = s*k + c (the paper's Figure 1)",
                              parse, to_json, result_name, plan, finalize, nullptr};
  d.headline = {{"s_cycles_per_path", "cycles/path", "the slope of T(k) = s*k + c, median over code placements"},
                {"c_cycles", "cycles", "the intercept c"},
                {"ratio_32_over_1", "x", "T(32) / T(1), measured"},
                {"s_layout_spread_rel", "of s", "(max - min) / median of s over the code placements"}};
  d.axes = {{placement_axis(), [](const KwayConfig& c) { return json(c.placements); }},
            {k_axis(), [](const KwayConfig& c) { return json(c.ks); }}};
  d.settings = joined({{placements_setting(), paths_setting()}, work_settings(), timing_settings()});
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(kway_experiment);

}  // namespace divbench
