// --sweep predication: a two-way divergent branch vs. a branch-free predicated form (both arms
// computed, one selected) vs. one path alone (the paper's Section IV-C), plus k-arm predicated forms
// so predication's own cost is visible as arms grow while SIMD efficiency stays full.
#include <algorithm>

#include "divbench/core/errors.hpp"
#include "divbench/kernels/predication.hpp"
#include "divbench/summary/quality.hpp"
#include "harness/config.hpp"
#include "harness/experiment.hpp"
#include "harness/timed_point.hpp"

namespace divbench {
namespace {

struct PredicationConfig {
  std::vector<int> predicated_arms;  // always includes 2 (the paper's comparison)
  std::uint32_t iters = 10000;
  TimingConfig timing;
};

PredicationConfig parse(const RunOptions& o) {
  PredicationConfig c;
  const auto& built = predicated_arm_counts();
  // Under --all, --k is the k sweep's; the predicated forms then run every built arm count.
  if (!o.all)
    for (int k : o.ks)
      if (std::find(built.begin(), built.end(), k) == built.end())
        throw UsageError("--sweep predication: --k " + std::to_string(k) +
                         " is not a built arm count (use 1, 2, 4, 8, 16 or 32)");
  reject_options(o, "--sweep predication", {"--body", "--map", "--seed", "--n", "--placements"},
                 "the predication kernels run the fma_chain body on arm = lane % arms, at placement 0");
  c.predicated_arms = o.ks.empty() || o.all ? built : o.ks;
  if (std::find(c.predicated_arms.begin(), c.predicated_arms.end(), 2) == c.predicated_arms.end())
    c.predicated_arms.push_back(2);
  std::sort(c.predicated_arms.begin(), c.predicated_arms.end());
  c.iters = static_cast<std::uint32_t>(o.iters);
  c.timing = parse_timing(o, Body::fma_chain);
  return c;
}

json to_json(const PredicationConfig& c) {
  json j{{"axis", "arms"},
         {"variants", {"single", "branchy", "predicated"}},
         {"predicated_arms", c.predicated_arms},
         {"iters", c.iters},
         {"body", "fma_chain"}};
  j.update(to_json(c.timing));
  j["threads_per_block"] = 32;
  j["region"] = "clock64 around the region, after __syncwarp(); median over samples";
  return j;
}

PointSpec point(const PredicationConfig& c, const DeviceRecord& dev, PredVariant v, int arms, const std::string& label) {
  const TimedKernel kernel = predication_timed_kernel(v, arms, c.iters);
  const TimedRun run{c.timing, std::nullopt, false};
  return PointSpec{label,
                   [kernel, run, dev, v, arms] {
                     PointResult r = run_timed_point(kernel, run, dev, pred_arms(v, arms));
                     r.point.extra["variant"] = pred_variant_name(v);
                     r.point.extra["arms"] = pred_arms(v, arms);
                     return r;
                   },
                   nullptr, nullptr};
}

std::vector<PointSpec> plan(const PredicationConfig& c, const DeviceRecord& dev) {
  std::vector<PointSpec> pts;
  pts.push_back(point(c, dev, PredVariant::single, 1, "single"));
  pts.push_back(point(c, dev, PredVariant::branchy, 2, "branchy"));
  for (int a : c.predicated_arms) pts.push_back(point(c, dev, PredVariant::predicated, a, "predicated/arms:" + std::to_string(a)));
  return pts;
}

const TimedPoint* find_point(const ResultRecord& r, const std::string& variant, int arms) {
  for (const auto& p : r.points)
    if (p.extra.value("variant", "") == variant && p.extra.value("arms", 0) == arms) return &p;
  return nullptr;
}

void finalize(const PredicationConfig&, ResultRecord& r) {
  const TimedPoint* single = find_point(r, "single", 1);
  const TimedPoint* branchy = find_point(r, "branchy", 2);
  const TimedPoint* pred2 = find_point(r, "predicated", 2);
  if (!single) return;
  const double t1 = single->cycles.median;
  if (branchy) r.summary["ratio_branchy_over_single"] = branchy->cycles.median / t1;
  if (pred2) r.summary["ratio_predicated_over_single"] = pred2->cycles.median / t1;
  // Each predicated form over the single path, and over the one-arm predicated form (same loop
  // shape, so code layout cancels: predication's own cost per added arm).
  const TimedPoint* pred1 = find_point(r, "predicated", 1);
  json per_arms = json::object(), per_arms_own = json::object();
  for (const auto& p : r.points)
    if (p.extra.value("variant", "") == "predicated") {
      const std::string a = std::to_string(p.extra.value("arms", 0));
      per_arms[a] = p.cycles.median / t1;
      if (pred1) per_arms_own[a] = p.cycles.median / pred1->cycles.median;
    }
  r.summary["predicated_over_single_by_arms"] = per_arms;
  if (pred1) r.summary["predicated_over_predicated1_by_arms"] = per_arms_own;
  add_quality_summary(r);
}

Experiment predication_experiment() {
  return make_experiment<PredicationConfig>(
      {"predication", {}, "sweep",
       "two-way branch vs. predicated select vs. one path; k-arm predicated forms (Section IV-C)", parse, to_json,
       nullptr, plan, finalize, nullptr});
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(predication_experiment);

}  // namespace divbench
