// --sweep loops: the loop-cost model's validation set measured (loops.cu and bodies.cuh here: loop bodies the
// fit of its constants never sees). For every body and code placement, one warp per SM runs the
// body's loop for n1 and for n2 iterations; a = (T(n2) - T(n1)) / (n2 - n1), the cycles per
// iteration with everything outside the loop differenced away. `divbench kernels fit --cost C
// --validation THIS` predicts each (body, placement) from its own SASS with the constants fitted on
// C and writes validation[] into the constants document (docs/sass.md, "Out of sample").
#include <algorithm>

#include "divbench/core/errors.hpp"
#include "experiments/loops/launcher.hpp"
#include "divbench/summary/iteration_cost.hpp"
#include "divbench/summary/quality.hpp"
#include "harness/common_settings.hpp"
#include "harness/config.hpp"
#include "harness/experiment.hpp"
#include "harness/timed_point.hpp"

namespace divbench {
namespace {

struct LoopsConfig {
  std::vector<std::string> bodies;
  std::vector<std::uint32_t> ns;  // two iteration counts
  std::vector<int> placements;
  TimingConfig timing;
};

LoopsConfig parse(const SettingValues& o) {
  LoopsConfig c;
  c.bodies = validation_body_names();
  c.ns = o.counts("--n");
  std::sort(c.ns.begin(), c.ns.end());
  c.ns.erase(std::unique(c.ns.begin(), c.ns.end()), c.ns.end());
  if (c.ns.size() != 2 || c.ns[0] == 0)
    throw UsageError("--sweep loops: --n takes two different positive iteration counts (e.g. 1000,5000)");
  c.placements = parse_placements(o);
  c.timing = parse_timing(o, Body::fma_chain);
  return c;
}

json to_json(const LoopsConfig& c) {
  json j{
         {"model", "a = (T(n2) - T(n1)) / (n2 - n1) per body and placement"},
         {"bodies", c.bodies},
         {"ns", c.ns},
         {"placements", c.placements}};
  j.update(to_json(c.timing));
  return j;
}

std::vector<PointSpec> plan(const LoopsConfig& c, const DeviceRecord& dev) {
  const int sm = dev.cc_major * 10 + dev.cc_minor;
  const auto& built = validation_built_for();
  if (std::find(built.begin(), built.end(), sm) == built.end())
    throw UsageError("--sweep loops: the validation loops are built for sm_" +
                     (built.empty() ? std::string("?") : std::to_string(built.front())) + " only, this device is sm_" +
                     std::to_string(sm) + " (configure with -DDIVBENCH_VALIDATION_ARCHS=" + std::to_string(sm) + ")");
  std::vector<PointSpec> pts;
  const TimedRun run{c.timing, std::nullopt, false};
  for (const auto& body : c.bodies)
    for (int placement : c.placements)
      for (std::uint32_t n : c.ns) {
        const TimedKernel kernel = validation_timed_kernel(body, n, placement);
        pts.push_back(timed_point_spec({{"body", body}, {"placement", placement}, {"n", n}}, kernel, run, dev, 1,
                                       {{"body", body}, {"iters_per_path", n}}));
      }
  return pts;
}

void finalize(const LoopsConfig& c, ResultRecord& r) {
  json loops = json::array();
  for (const auto& body : c.bodies)
    for (int placement : c.placements) {
      std::vector<const TimedPoint*> pts;
      for (const auto& p : r.points)
        if (p.axes.value("body", "") == body && p.axes.value("placement", -1) == placement) pts.push_back(&p);
      if (const std::optional<IterationCost> a = iteration_cost(pts))
        loops.push_back(json{{"body", body}, {"placement", placement}, {"a", a->c},
                             {"n1", static_cast<std::uint32_t>(a->n1)}, {"n2", static_cast<std::uint32_t>(a->n2)},
                             {"t1", a->t1}, {"t2", a->t2}});
    }
  r.summary["loops"] = loops;
  add_quality_summary(r);
}

ExperimentDef<LoopsConfig> loops_experiment() {
  ExperimentDef<LoopsConfig> d{"loops", {}, "sweep",
                               "the loop-cost model's validation loops: a per body and code placement by differencing "
                               "two iteration counts",
                               parse, to_json, nullptr, plan, finalize, nullptr};
  d.headline = {{"max_cv", "", "the largest coefficient of variation of a point's samples"}};
  d.in_all = false;
  d.kernel_needle = validation_kernel_needle;  // `kernels fit --validation` finds the loops' kernels through it
  AxisSpec body("body", AxisType::string, "", "", "a validation loop body (experiments/loops/bodies.cuh)",
                AxisLabel::bare);
  AxisSpec placement = placement_axis();
  placement.label = AxisLabel::keyed;
  d.axes = {{body, [](const LoopsConfig& c) { return json(c.bodies); }},
            {placement, [](const LoopsConfig& c) { return json(c.placements); }},
            {n_axis("--n"), [](const LoopsConfig& c) { return json(c.ns); }}};
  d.settings = joined({{placements_setting().with_default(std::to_string(kPlacements)),
                        iterations_setting().with_default("1000,5000")},
                       timing_settings()});
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(loops_experiment);

}  // namespace divbench
