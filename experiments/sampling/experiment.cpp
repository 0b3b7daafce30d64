// --sweep sampling: the validation behind the default sampling mode. For every body, lane map and k
// of a list, the same k-way point timed both ways in one run — one warp per launch (single) and one
// warp on every SM per launch (warp-per-sm) — and their medians compared. A body's default is
// warp-per-sm only where the two agree within 1e-4 (config.hpp: default_sampling).
#include <cmath>

#include "divbench/core/errors.hpp"
#include "divbench/core/fit.hpp"
#include "experiments/kway/launcher.hpp"
#include "divbench/summary/quality.hpp"
#include "harness/common_settings.hpp"
#include "harness/config.hpp"
#include "harness/experiment.hpp"
#include "harness/timed_point.hpp"

namespace divbench {
namespace {

struct SamplingConfig {
  std::vector<Body> bodies;
  std::vector<LaneMap> maps;
  std::vector<int> ks;
  std::uint32_t iters = 0;             // compute bodies (--iters)
  std::uint32_t iters_memory = 1000;   // bodies that touch memory (single sampling is slow for them), unless --iters
  std::uint64_t seed = 0;
  TimingConfig timing;                 // reps, warmup, samples; both modes run
  double tolerance = 1e-4;             // largest |rel_diff| for which the modes count as equal
};

SamplingConfig parse(const SettingValues& o) {
  SamplingConfig c;
  c.bodies = o.has("--body") ? std::vector<Body>{parse_body(o.text("--body"))} : all_bodies();
  c.maps = o.has("--map") ? std::vector<LaneMap>{parse_lane_map(o.text("--map"))} : all_lane_maps();
  c.ks = o.ints("--k");
  c.iters = static_cast<std::uint32_t>(o.integer("--iters"));
  if (o.has("--iters")) c.iters_memory = c.iters;
  c.seed = o.whole("--seed");
  c.timing.reps = static_cast<int>(o.integer("--reps"));  // both modes run: no --sampling
  c.timing.warmup = o.has("--warmup") ? static_cast<int>(o.integer("--warmup")) : -1;
  c.timing.keep_samples = !o.flag("--no-samples");
  return c;
}

json to_json(const SamplingConfig& c) {
  json j{{"bodies", axis_names(c.bodies, body_name)},
         {"maps", axis_names(c.maps, lane_map_name)}, {"ks", c.ks},
         {"iters", c.iters}, {"iters_memory_bodies", c.iters_memory}, {"seed", c.seed}};
  j.update(to_json(c.timing));
  j["sampling"] = {"single", "warp-per-sm"};
  j["equal_within"] = c.tolerance;
  return j;
}

std::vector<PointSpec> plan(const SamplingConfig& c, const DeviceRecord& dev) {
  std::vector<PointSpec> pts;
  for (Body body : c.bodies)
    for (LaneMap map : c.maps)
      for (int k : c.ks) {
        const std::uint32_t iters = body_touches_memory(body) ? c.iters_memory : c.iters;
        const TimedKernel kernel =
            kway_timed_kernel(body, make_kway_params(body, k, assign_lanes(map, k, iters, c.seed)), 0);
        for (Sampling mode : {Sampling::single, Sampling::warp_per_sm}) {
          TimedRun run{c.timing, std::nullopt, false};
          run.timing.sampling = mode;
          pts.push_back(timed_point_spec(
              {{"body", body_name(body)}, {"map", lane_map_name(map)}, {"k", k}, {"sampling", sampling_name(mode)}},
              kernel, run, dev, k, {{"body", body_name(body)}, {"map", lane_map_name(map)}, {"iters", iters}}));
        }
      }
  return pts;
}

void finalize(const SamplingConfig& c, ResultRecord& r) {
  json pairs = json::array();
  double max_compute = 0, max_memory = 0;
  bool any_compute = false, any_memory = false;
  json by_body = json::object();
  for (auto& par : r.points) {
    if (par.axes.value("sampling", "") != "warp-per-sm") continue;
    for (const auto& one : r.points) {
      if (one.axes.value("sampling", "") != "single" || one.axes["k"] != par.axes["k"] ||
          one.axes["body"] != par.axes["body"] || one.axes["map"] != par.axes["map"])
        continue;
      const double rel = par.cycles.median / one.cycles.median - 1.0;
      par.extra["median_single"] = one.cycles.median;
      par.extra["median_parallel"] = par.cycles.median;
      par.extra["rel_diff"] = rel;
      const std::string body = par.axes["body"].get<std::string>();
      const bool memory = body_touches_memory(parse_body(body));
      (memory ? max_memory : max_compute) = std::max(memory ? max_memory : max_compute, std::fabs(rel));
      (memory ? any_memory : any_compute) = true;
      const double worst = by_body.contains(body) ? by_body[body].get<double>() : 0.0;
      by_body[body] = std::max(worst, std::fabs(rel));
      pairs.push_back(json{{"body", body}, {"map", par.axes["map"]}, {"k", par.k}, {"median_single", one.cycles.median},
                           {"median_parallel", par.cycles.median}, {"rel_diff", rel},
                           {"sms_distinct", par.extra.value("sms_distinct", 0)},
                           {"launches_with_shared_sm", par.extra.value("launches_with_shared_sm", 0)}});
    }
  }
  r.summary["max_rel_diff_compute"] = any_compute ? json(max_compute) : json(nullptr);
  r.summary["max_rel_diff_memory"] = any_memory ? json(max_memory) : json(nullptr);
  json verdict = json::object();
  for (auto it = by_body.begin(); it != by_body.end(); ++it)
    verdict[it.key()] = json{{"max_abs_rel_diff", it.value()},
                             {"modes_equal", it.value().get<double>() <= c.tolerance},
                             {"default_sampling", sampling_name(default_sampling(parse_body(it.key())))}};
  // What a mode difference does to the fit T(k) = s*k + c (what users compare across GPUs): per body
  // and map, s and c fitted on each mode's medians. A constant offset moves c, not s.
  json fits = json::array();
  double max_s_compute = 0;
  for (auto it = verdict.begin(); it != verdict.end(); ++it) {
    const std::string& body = it.key();
    double worst_s = 0;
    json offsets = json::array();
    for (const auto& map : c.maps) {
      std::vector<double> ks, single, parallel;
      for (const auto& q : pairs)
        if (q["body"] == body && q["map"] == lane_map_name(map)) {
          ks.push_back(q["k"].get<double>());
          single.push_back(q["median_single"].get<double>());
          parallel.push_back(q["median_parallel"].get<double>());
        }
      if (ks.size() < 2) continue;
      const LinearFit fs = fit_linear(ks, single), fp = fit_linear(ks, parallel);
      const double s_rel = fp.s / fs.s - 1.0;
      worst_s = std::max(worst_s, std::fabs(s_rel));
      offsets.push_back(fp.c - fs.c);
      fits.push_back(json{{"body", body}, {"map", lane_map_name(map)}, {"s_single", fs.s}, {"s_parallel", fp.s},
                          {"s_rel_diff", s_rel}, {"c_single", fs.c}, {"c_parallel", fp.c}, {"c_offset_cycles", fp.c - fs.c}});
    }
    if (!body_touches_memory(parse_body(body))) max_s_compute = std::max(max_s_compute, worst_s);
    it.value()["max_abs_s_rel_diff"] = worst_s;
    it.value()["slopes_equal"] = worst_s <= c.tolerance;
    it.value()["c_offset_cycles"] = offsets;
  }
  r.summary["max_s_rel_diff_compute"] = max_s_compute;
  r.summary["by_body"] = verdict;
  r.summary["fits"] = fits;
  r.summary["pairs"] = pairs;
  add_quality_summary(r);
}

ExperimentDef<SamplingConfig> sampling_experiment() {
  ExperimentDef<SamplingConfig> d{"sampling", {}, "sweep",
                                  "single vs warp-per-SM sampling: equal medians? (validates the default mode)",
                                  parse, to_json, nullptr, plan, finalize, nullptr};
  d.headline = {{"max_rel_diff_compute", "of the median", "the largest difference between the sampling modes, compute bodies"},
                {"max_rel_diff_memory", "of the median", "the same, bodies that touch memory"}};
  d.in_all = false;
  d.axes = {{body_axis(), [](const SamplingConfig& c) { return axis_names(c.bodies, body_name); }},
            {map_axis(), [](const SamplingConfig& c) { return axis_names(c.maps, lane_map_name); }},
            {k_axis(), [](const SamplingConfig& c) { return json(c.ks); }},
            {{"sampling", AxisType::string, "", "",
              "how the point was sampled: one warp per launch or one warp on every SM", AxisLabel::bare},
             [](const SamplingConfig&) { return json{"single", "warp-per-sm"}; }}};
  d.settings = {body_setting(), map_setting(), paths_setting().with_default("1,2,8,32"), iters_setting(), seed_setting(),
                reps_setting(), warmup_setting(), no_samples_setting()};
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(sampling_experiment);

}  // namespace divbench
