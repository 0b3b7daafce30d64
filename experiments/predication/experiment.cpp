// --sweep predication: a two-way divergent branch vs. a branch-free predicated form (both arms
// computed, one selected) vs. one path alone (the paper's Section IV-C), plus k-arm predicated forms
// so predication's own cost is visible as arms grow while SIMD efficiency stays full. The timed
// loops have equal shapes (experiments/predication/predication.cuh; the SASS of this binary, recorded
// with every point, shows it); each variant runs at two iteration counts, so the cost of one
// iteration is a difference in which every fixed cost cancels, at every code placement, so the
// ratios come with the spread that code layout alone causes.
#include <algorithm>

#include "divbench/core/errors.hpp"
#include "experiments/predication/launcher.hpp"
#include "divbench/summary/loop_shape.hpp"
#include "experiments/predication/summary.hpp"
#include "divbench/summary/quality.hpp"
#include "harness/common_settings.hpp"
#include "harness/config.hpp"
#include "harness/k_list.hpp"
#include "harness/experiment.hpp"
#include "harness/timed_point.hpp"

namespace divbench {
namespace {

struct PredicationConfig {
  std::vector<int> predicated_arms;  // always includes 1 and 2 (the baselines of the ratios)
  std::vector<std::uint32_t> ns;     // two iteration counts: the per-iteration cost is their difference
  std::vector<int> placements;
  TimingConfig timing;
};

PredicationConfig parse(const SettingValues& o) {
  PredicationConfig c;
  const auto& built = predicated_arm_counts();
  // Its own --k, the arm counts (under --all --k is the k sweep's list and does not reach it).
  c.predicated_arms = o.has("--k") ? o.ints("--k") : built;
  for (int k : c.predicated_arms)
    if (std::find(built.begin(), built.end(), k) == built.end())
      throw UsageError("--sweep predication: --k " + std::to_string(k) +
                       " is not a built arm count (use 1, 2, 4, 8, 16 or 32)");
  c.ns = o.counts("--n");
  if (c.ns.size() != 2)
    throw UsageError("--sweep predication: --n takes exactly two iteration counts (e.g. 1000,10000): the cost "
                     "of one iteration is the difference of their times");
  if (c.ns.front() == 0)
    throw UsageError("--sweep predication: --n 0 is not an iteration count here (a loop that runs no iteration "
                     "takes another path through the kernel): give two counts >= 1");
  for (int base : {1, 2})
    if (std::find(c.predicated_arms.begin(), c.predicated_arms.end(), base) == c.predicated_arms.end())
      c.predicated_arms.push_back(base);
  std::sort(c.predicated_arms.begin(), c.predicated_arms.end());
  c.placements = parse_placements(o);
  c.timing = parse_timing(o, Body::fma_chain);
  return c;
}

json to_json(const PredicationConfig& c) {
  json j{
         {"variants", {"single", "branchy", "predicated"}},
         {"predicated_arms", c.predicated_arms},
         {"ns", c.ns},
         {"per_iteration", "(T(n2) - T(n1)) / (n2 - n1) per variant, arms and placement"},
         {"placements", c.placements},
         {"body", "fma_chain"}};
  j.update(to_json(c.timing));
  j["threads_per_block"] = 32;
  j["region"] = "clock64 around the region, after __syncwarp(); median over samples";
  return j;
}

// The work loop's SASS shape of the variant's kernel, from this binary's kernel facts.
json loop_json(const DeviceFacts& df, PredVariant v, int arms, int placement) {
  if (!df) return json{{"available", false}, {"why", df.why}};
  try {
    json j = to_json(work_loop_shape(*df.facts, df.sm, predication_kernel_needle(v, arms, placement)));
    j["available"] = true;
    return j;
  } catch (const std::runtime_error& e) {
    return json{{"available", false}, {"why", e.what()}};
  }
}

std::vector<PointSpec> plan(const PredicationConfig& c, const DeviceRecord& dev) {
  const DeviceFacts facts = running_facts_for_device(dev.cc_major, dev.cc_minor);
  std::vector<std::pair<PredVariant, int>> variants{{PredVariant::single, 1}, {PredVariant::branchy, 2}};
  for (int a : c.predicated_arms) variants.push_back({PredVariant::predicated, a});
  std::vector<PointSpec> pts;
  for (int placement : c.placements)
    for (const auto& [v, arms] : variants)
      for (std::uint32_t n : c.ns) {
        const TimedKernel kernel = predication_timed_kernel(v, arms, n, placement);
        const TimedRun run{c.timing, std::nullopt, false};
        const json loop = loop_json(facts, v, arms, placement);
        // --metrics at the first placement only: a placement shifts the code, not what the warp
        // executes (the counters); the same kernel once and its zero-work twin (n = 0)
        const bool profiled = placement == c.placements.front();
        pts.push_back(timed_point_spec(
            {{"placement", placement}, {"variant", pred_variant_name(v)}, {"arms", pred_arms(v, arms)}, {"n", n}}, kernel,
            run, dev, pred_arms(v, arms),
            {{"variant", pred_variant_name(v)}, {"arms", pred_arms(v, arms)}, {"iters_per_path", n},
             {"loops_per_iteration", pred_work_loops_per_iteration(v, arms)}, {"loop", loop}},
            profiled ? launch_once(kernel) : nullptr,
            profiled ? launch_once(predication_timed_kernel(v, arms, 0, placement)) : nullptr));
      }
  return pts;
}

void finalize(const PredicationConfig&, ResultRecord& r) {
  add_predication_summary(r);
  add_quality_summary(r);
}

ExperimentDef<PredicationConfig> predication_experiment() {
  ExperimentDef<PredicationConfig> d{
      "predication", {}, "sweep",
      "two-way branch vs. predicated select vs. one path, equal loop shapes, per-iteration cost at every code "
      "placement; k-arm predicated forms (Section IV-C)",
      parse, to_json, nullptr, plan, finalize, nullptr};
  d.headline = {{"ratio_branchy_over_single", "x", "a two-way branch's cost per iteration over the single path's"},
                {"ratio_predicated_over_single", "x", "the predicated select's over the single path's"},
                {"loop_shapes_equal", "", "the variants' work loops equal but for the work (the comparison's premise)"}};
  d.axes = {{placement_axis(), [](const PredicationConfig& c) { return json(c.placements); }},
            {{"variant", AxisType::string, "", "", "single path, two-way branch, or predicated select",
              AxisLabel::bare},
             [](const PredicationConfig&) { return json{"single", "branchy", "predicated"}; }},
            {{"arms", AxisType::integer, "arms", "--k",
              "arms of the variant (predicated: lanes select arm = lane % arms)"},
             [](const PredicationConfig& c) { return json(c.predicated_arms); }},
            {n_axis("--n"), [](const PredicationConfig& c) { return json(c.ns); }}};
  SettingSpec arms{"--k", SettingType::list, "", "arms", "the predicated arm counts: a list of 1,2,4,8,16,32 (default all)"};
  arms.parse = [](const std::string& t) { return json(parse_k_list(t)); };
  d.settings = joined({{placements_setting().with_default(std::to_string(kPlacements)), arms,
                        iterations_setting().with_default("1000,10000")},
                       timing_settings()});
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(predication_experiment);

}  // namespace divbench
