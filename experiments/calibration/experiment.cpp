// --sweep calibration: kernels of known divergence (converged, 2-way ... 32-way) for the efficiency
// counters. Run with --metrics: each point then holds the whole-kernel counters, those of the
// zero-work twin (iters = 0) and the region-only ratio, which must come out at 32/k.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "divbench/core/errors.hpp"
#include "divbench/cupti/region.hpp"
#include "experiments/calibration/launcher.hpp"
#include "harness/common_settings.hpp"
#include "harness/config.hpp"
#include "harness/k_list.hpp"
#include "harness/experiment.hpp"

namespace divbench {
namespace {

constexpr int kLanes = 32;

PointResult run_point(int k, std::uint32_t iters) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<float> got = run_calibration(k, iters);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (int lane = 0; lane < kLanes; ++lane) {
    const float want = calibration_reference(k, iters, lane);
    if (std::memcmp(&want, &got[lane], sizeof(float)) != 0)
      throw VerificationError("calibration k=" + std::to_string(k) + ": lane " + std::to_string(lane) + " produced " +
                              std::to_string(got[lane]) + ", expected " + std::to_string(want));
  }
  PointResult r;
  r.timed = false;
  r.raw = json{{"k", k},         {"iters", iters},         {"expected_region_ratio", 32.0 / k},
               {"verified", true}, {"launch_wall_ms", ms}};
  return r;
}

std::function<void()> launch_once(int k, std::uint32_t iters) {
  return [k, iters] { run_calibration(k, iters); };
}

struct CalibrationConfig {
  std::vector<int> ks;
  std::uint32_t iters = 10000;
  bool metrics = false;
};

CalibrationConfig parse(const SettingValues& o) {
  CalibrationConfig c;
  const auto& built = calibration_ks();
  c.ks = o.ints("--k");
  for (int k : c.ks)
    if (std::find(built.begin(), built.end(), k) == built.end())
      throw UsageError("--sweep calibration: no calibration kernel for k=" + std::to_string(k) + " (built: 1,2,4,8,16,32)");
  c.iters = static_cast<std::uint32_t>(o.integer("--iters"));
  c.metrics = o.flag("--metrics");
  return c;
}

json to_json(const CalibrationConfig& c) {
  return json{{"ks", c.ks}, {"iters", c.iters}, {"blocks", 1}, {"threads_per_block", 32},
              {"metrics", c.metrics}, {"twin", "the same kernel with iters = 0"}};
}

std::vector<PointSpec> plan(const CalibrationConfig& c, const DeviceRecord&) {
  std::vector<PointSpec> pts;
  for (int k : c.ks) {
    const std::uint32_t iters = c.iters;
    pts.push_back(PointSpec{{{"k", k}}, "", [k, iters] { return run_point(k, iters); }, launch_once(k, iters),
                            launch_once(k, 0)});
  }
  return pts;
}

void finalize(const CalibrationConfig&, ResultRecord& r) {
  double worst_region = 0, worst_whole = 0;
  bool all = !r.points_extra.empty();
  for (auto& p : r.points_extra) {
    const auto& m = p.contains("metrics") ? p["metrics"] : json::object();
    const double expect = p["expected_region_ratio"].get<double>();
    if (!m.value("available", false) || !m.contains("region") || m["region"]["ratio"].is_null()) {
      all = false;
      continue;
    }
    const double region = m["region"]["ratio"].get<double>();
    const double whole = m["values"][kMetricRatio].get<double>();
    p["region_rel_err"] = region / expect - 1;
    p["whole_rel_err"] = whole / expect - 1;
    worst_region = std::max(worst_region, std::fabs(region / expect - 1));
    worst_whole = std::max(worst_whole, std::fabs(whole / expect - 1));
  }
  r.summary["metrics_available"] = all;
  if (all) {
    r.summary["max_abs_region_rel_err"] = worst_region;
    r.summary["max_abs_whole_rel_err"] = worst_whole;
  }
}

ExperimentDef<CalibrationConfig> calibration_experiment() {
  ExperimentDef<CalibrationConfig> d{
      "calibration", {}, "sweep",
      "counter calibration: kernels of known divergence, k = 1,2,4,8,16,32 (use with --metrics)", parse, to_json,
      nullptr, plan, finalize, nullptr};
  d.headline = {{"max_abs_region_rel_err", "of the truth", "the counters' largest error on the region, against the kernels' known divergence"},
                {"max_abs_whole_rel_err", "of the truth", "the same for the whole kernel"}};
  d.axes = {{k_axis(), [](const CalibrationConfig& c) { return json(c.ks); }}};
  // Its own --k (the built calibration kernels; under --all --k is the k sweep's list and does not reach
  // it); untimed: one checked launch per point (no --reps, --warmup, --sampling).
  std::string built;
  for (int k : calibration_ks()) built += (built.empty() ? "" : ",") + std::to_string(k);
  SettingSpec ks{"--k", SettingType::list, built, "paths", "the calibration kernels' k: a list of " + built + " (the built ones)"};
  ks.parse = [](const std::string& t) { return json(parse_k_list(t)); };
  d.settings = {ks, iters_setting()};
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(calibration_experiment);

}  // namespace divbench
