// --sweep predication: a two-way divergent branch vs. a branch-free predicated form (both arms
// computed, one selected) vs. one path alone (the paper's Section IV-C), plus k-arm predicated forms
// so predication's own cost is visible as arms grow while SIMD efficiency stays full.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "divbench/core/errors.hpp"
#include "divbench/core/samples.hpp"
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/launch.hpp"
#include "divbench/kernels/kway.hpp"
#include "divbench/kernels/predication.hpp"
#include "harness/experiment.hpp"
#include "harness/quality.hpp"

namespace divbench {
namespace {

std::vector<int> arms_of(const RunOptions& o) {
  std::vector<int> arms = o.ks.empty() ? predicated_arm_counts() : o.ks;
  if (std::find(arms.begin(), arms.end(), 2) == arms.end()) arms.push_back(2);  // the paper's comparison
  std::sort(arms.begin(), arms.end());
  return arms;
}

PointResult run_point(PredVariant v, int arms, const RunOptions& o) {
  float* out = nullptr;
  DIVBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&out), kWarpLanes * sizeof(float)));
  std::vector<float> host(kWarpLanes, std::numeric_limits<float>::quiet_NaN());
  LaunchSamples ls;
  try {
    DIVBENCH_CUDA_CHECK(cudaMemcpy(out, host.data(), kWarpLanes * sizeof(float), cudaMemcpyHostToDevice));
    LaunchPlan plan;
    plan.warmup = o.warmup;
    plan.reps = o.reps;
    ls = time_launches(
        plan, [&](RegionSample* dst) { launch_predication(v, arms, static_cast<std::uint32_t>(o.iters), dst, out); },
        "predication_kernel");
    DIVBENCH_CUDA_CHECK(cudaMemcpy(host.data(), out, kWarpLanes * sizeof(float), cudaMemcpyDeviceToHost));
  } catch (...) {
    cudaFree(out);
    throw;
  }
  DIVBENCH_CUDA_CHECK(cudaFree(out));
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    const float want = predication_reference(v, arms, static_cast<std::uint32_t>(o.iters), lane);
    if (std::memcmp(&want, &host[lane], sizeof(float)) != 0)
      throw VerificationError(std::string("predication/") + pred_variant_name(v) + " arms=" +
                              std::to_string(pred_arms(v, arms)) + ": lane " + std::to_string(lane) + " produced " +
                              std::to_string(host[lane]) + ", expected " + std::to_string(want) +
                              " — timing discarded");
  }
  PointResult r;
  r.point = to_timed_point(ls.samples, ls.reps, ls.samples_per_launch, pred_arms(v, arms), ls.wall_ms);
  r.point.extra["variant"] = pred_variant_name(v);
  r.point.extra["arms"] = pred_arms(v, arms);
  r.point.extra["verified"] = true;
  r.seconds = r.point.clock_mhz > 0 ? r.point.cycles.median / (r.point.clock_mhz * 1e6) : 0.0;
  return r;
}

const TimedPoint* find_point(const ResultRecord& r, const std::string& variant, int arms) {
  for (const auto& p : r.points)
    if (p.extra.value("variant", "") == variant && p.extra.value("arms", 0) == arms) return &p;
  return nullptr;
}

Experiment predication_experiment() {
  Experiment e;
  e.name = "predication";
  e.kind = "sweep";
  e.help = "two-way branch vs. predicated select vs. one path; k-arm predicated forms (Section IV-C)";
  e.validate = [](const RunOptions& o) {
    const auto& ok = predicated_arm_counts();
    for (int k : o.ks)
      if (std::find(ok.begin(), ok.end(), k) == ok.end())
        throw UsageError("--sweep predication: --k " + std::to_string(k) +
                         " is not a built arm count (use 1, 2, 4, 8, 16 or 32)");
    if (!o.all && o.body != "fma_chain") throw UsageError("--sweep predication uses the fma_chain body only");
    if (!o.all && o.map != "modulo") throw UsageError("--sweep predication: --map does not apply (arm = lane % arms)");
  };
  e.result_name = [](const RunOptions&) { return std::string("predication"); };
  e.config = [](const RunOptions& o) {
    return json{{"axis", "arms"},
                {"variants", {"single", "branchy", "predicated"}},
                {"predicated_arms", arms_of(o)},
                {"reps", o.reps},
                {"warmup", o.warmup},
                {"iters", o.iters},
                {"body", "fma_chain"},
                {"blocks", 1},
                {"threads_per_block", 32},
                {"region", "clock64 around the region, after __syncwarp(); median over launches"}};
  };
  e.plan = [](const RunContext& ctx) {
    const RunOptions o = ctx.opts;  // copied into each point
    std::vector<PointSpec> pts;
    pts.push_back({"single", [o] { return run_point(PredVariant::single, 1, o); }, nullptr, nullptr});
    pts.push_back({"branchy", [o] { return run_point(PredVariant::branchy, 2, o); }, nullptr, nullptr});
    for (int a : arms_of(o))
      pts.push_back({"predicated/arms:" + std::to_string(a), [o, a] { return run_point(PredVariant::predicated, a, o); },
                     nullptr, nullptr});
    return pts;
  };
  e.finalize = [](const RunContext&, ResultRecord& r) {
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
  };
  return e;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(predication_experiment);

}  // namespace divbench
