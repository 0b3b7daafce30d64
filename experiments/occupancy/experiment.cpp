// --sweep occupancy: the k-way penalty T(K)/T(1) (K = 32 unless --k K) while the warps on every SM
// grow: 1, 2, 4, ... up to the hardware maximum warps per SM, on every SM at once (one block of
// w <= 32 warps, or w/32 blocks of 32 warps (48: 3 of 16), per SM, pinned by reserving dynamic shared memory so
// that exactly that many blocks fit: the occupancy API must agree), then oversubscribed: 2x and 4x
// the maximum that is resident (the launch runs in 2 and 4 waves). The sweep owns its launch shapes
// (TimedRun::shape; no warp-per-SM sampling). Every point times each whole launch with CUDA events
// and, in the same point, an empty kernel launched with the same shape: the penalty comes from the
// kernel times less that launch overhead. The per-warp region time is kept, flagged steady_state
// false where a warp's region does not cover the kernel (occupancy_summary.hpp says the test).
#include <algorithm>
#include <cmath>

#include "divbench/core/errors.hpp"
#include "divbench/cuda/occupancy.hpp"
#include "experiments/occupancy/launcher.hpp"
#include "experiments/kway/launcher.hpp"
#include "experiments/occupancy/summary.hpp"
#include "divbench/summary/quality.hpp"
#include "harness/common_settings.hpp"
#include "harness/config.hpp"
#include "harness/k_list.hpp"
#include "harness/experiment.hpp"
#include "harness/timed_point.hpp"

namespace divbench {
namespace {

// Launches per point unless --reps says otherwise: each launch is already the median of up to
// thousands of warps, and the largest shapes run ~70 ms per launch (201 of them would take ~30 s).
constexpr int kDefaultOccupancyLaunches = 21;
constexpr double kSteadyMinShare = 0.9;  // steady_state: region x waves >= 0.9 x corrected kernel time
const std::vector<int> kWaves{2, 4};     // oversubscription at the maximum residency

struct OccupancyConfig {
  int k_divergent = 0;   // the k whose penalty over k = 1 is measured (its own --k, default 32)
  WorkConfig work;
  TimingConfig timing;   // reps = launches of each grid
};

struct Residency {
  std::string series;   // "resident" (waves = 1) or "oversubscribed"
  int warps_per_sm = 0; // resident warps per SM
  int waves = 1;        // launches of the resident grid's size in one launch
  LaunchShape shape;
  int blocks_per_sm = 0;               // pinned blocks per SM
  int theoretical_blocks_per_sm = 0;   // occupancy API
};

OccupancyConfig parse(const SettingValues& o) {
  OccupancyConfig c;
  c.work = parse_work(o);
  c.timing.reps = static_cast<int>(o.integer("--reps"));
  c.timing.warmup = o.has("--warmup") ? static_cast<int>(o.integer("--warmup")) : -1;
  // Up to tens of thousands of warps per launch: the per-launch medians are the samples kept.
  c.timing.keep_samples = false;
  // Its own --k: under --all --k is the k sweep's list and does not reach it (it keeps k = 32).
  const std::vector<int> ks = o.ints("--k");
  if (ks.size() > 1) throw UsageError("--sweep occupancy takes one --k value (the divergent k, default 32)");
  if (ks.front() < 2) throw UsageError("--sweep occupancy: --k must be at least 2 (the penalty is T(k)/T(1))");
  c.k_divergent = ks.front();
  return c;
}

json to_json(const OccupancyConfig& c) {
  json j{{"k_divergent", c.k_divergent}};
  j.update(to_json(c.work));
  j["reps"] = c.timing.reps;
  j["warmup"] = warmup_launches(c.timing, true);
  j["sampling"] = "grid: every launch runs the residency's whole grid; each launch reduced to the median of its warps";
  j["samples_kept"] = false;
  j["resident_series"] = "warps per SM 1, 2, 4, ... max on every SM, pinned by dynamic shared memory: per SM one "
                         "block of w <= 32 warps, or w/b blocks of b warps (b the largest power of two <= 32 dividing w)";
  j["oversubscribed_waves"] = kWaves;
  j["launch_overhead"] = "an empty kernel with the same launch shape, CUDA events, warmup + reps launches in the same point";
  j["steady_state_min_share"] = kSteadyMinShare;
  j["penalties"] = {{"kernel", "CUDA-event time of the whole launch less the empty kernel's, median over launches"},
                    {"region", "median over warps of clock64 region cycles, median over launches"}};
  return j;
}

Residency pinned(const DeviceRecord& d, const TimedKernel& kernel, const std::string& series, int w, int waves) {
  int per_block = std::min(w, 32);  // warps per block: the largest power of two <= 32 dividing w
  while (w % per_block != 0) per_block /= 2;
  const int n = w / per_block;  // blocks per SM
  Residency r{series, w, waves,
              LaunchShape{n * d.sm_count * waves, per_block * 32, smem_to_pin_blocks_per_sm(d.index, n)}, n, 0};
  r.theoretical_blocks_per_sm = kernel.blocks_per_sm(r.shape);
  if (r.theoretical_blocks_per_sm != n)
    throw std::runtime_error("occupancy: could not pin " + std::to_string(n) + " block(s) of " +
                             std::to_string(per_block) + " warps per SM with " + std::to_string(r.shape.dynamic_smem) +
                             " B of shared memory (the occupancy API allows " +
                             std::to_string(r.theoretical_blocks_per_sm) + ")");
  return r;
}

std::vector<Residency> plan_residency(const DeviceRecord& d, const TimedKernel& kernel) {
  std::vector<Residency> out;
  const int max_warps_sm = d.max_threads_per_sm / 32;
  for (int w = 1; w <= max_warps_sm; w *= 2) out.push_back(pinned(d, kernel, "resident", w, 1));
  // A maximum that is not a power of two (48 warps per SM on sm_86/89/120) ends the series too.
  if (out.back().warps_per_sm != max_warps_sm) out.push_back(pinned(d, kernel, "resident", max_warps_sm, 1));
  const int top = out.back().warps_per_sm;
  for (int waves : kWaves) out.push_back(pinned(d, kernel, "oversubscribed", top, waves));
  return out;
}

json residency_json(const Residency& r, const DeviceRecord& d, const json& sm_warps) {
  const int max_warps_sm = d.max_threads_per_sm / 32;
  std::vector<double> used;
  for (const auto& v : sm_warps)
    if (v.get<int>() > 0) used.push_back(v.get<int>());
  const double med = used.empty() ? 0.0 : median(used);
  const double mx = used.empty() ? 0.0 : *std::max_element(used.begin(), used.end());
  const double mn = used.empty() ? 0.0 : *std::min_element(used.begin(), used.end());
  const int launched = r.warps_per_sm * r.waves;
  return json{{"series", r.series},
              {"warps_per_sm", r.warps_per_sm},
              {"waves", r.waves},
              {"total_warps", r.shape.warps()},
              {"blocks", r.shape.blocks},
              {"threads_per_block", r.shape.threads_per_block},
              {"dynamic_smem", r.shape.dynamic_smem},
              {"blocks_per_sm", r.blocks_per_sm},
              {"theoretical_blocks_per_sm", r.theoretical_blocks_per_sm},
              {"theoretical_occupancy",
               std::min(1.0, r.theoretical_blocks_per_sm * (r.shape.threads_per_block / 32.0) / max_warps_sm)},
              {"sms_used", used.size()},
              // Warps each SM ran over the whole launch (all waves), from %smid in the first launch.
              {"warps_run_per_sm", json{{"min", mn}, {"median", med}, {"max", mx}}},
              {"every_sm_at_target", static_cast<int>(used.size()) == d.sm_count && mn == launched && mx == launched},
              // Resident at once: what an SM ran, per wave (all blocks of a wave fit at once, pinned).
              {"achieved_occupancy", med / r.waves / max_warps_sm}};
}

std::vector<PointSpec> plan(const OccupancyConfig& c, const DeviceRecord& dev) {
  std::vector<PointSpec> pts;
  auto kernel_for = [&](int k, bool idle = false) {
    LaneAssignment lanes = assign_lanes(c.work.map, k, c.work.iters, c.work.seed);
    if (idle) lanes.iters_of_path.fill(0);  // the zero-work twin of the counters
    return kway_timed_kernel(c.work.body, make_kway_params(c.work.body, k, lanes), 0);
  };
  for (const Residency& r : plan_residency(dev, kernel_for(1))) {
    for (int k : {1, c.k_divergent}) {
      const TimedKernel kernel = kernel_for(k);
      const TimedRun run{c.timing, r.shape, true};
      pts.push_back(PointSpec{{{"series", r.series}, {"warps_per_sm", r.warps_per_sm}, {"waves", r.waves}, {"k", k}},
                              "",
                              [kernel, run, r, dev, k] {
                                const Summary overhead =
                                    summarize(empty_kernel_launch_ms(r.shape, warmup_launches(run.timing, true), run.timing.reps));
                                PointResult pr = run_timed_point(kernel, run, dev, k);
                                pr.point.extra["residency"] = residency_json(r, dev, pr.point.extra["sm_warps"]);
                                pr.point.extra["launch_overhead_ms"] =
                                    json{{"median", overhead.median}, {"min", overhead.min}, {"max", overhead.max},
                                         {"cv", overhead.cv}};
                                return pr;
                              },
                              launch_once(kernel), launch_once(kernel_for(k, true)),
                              // The metric launches are one warp of kernel_for(k), whatever the residency:
                              // the same launches at every residency, and the k sweep's at placement 0,
                              // profiled once per k.
                              kway_launch_key(c.work.body, c.work.map, k, c.work.iters, c.work.seed, 0)});
    }
  }
  return pts;
}

void finalize(const OccupancyConfig&, ResultRecord& r) {
  add_occupancy_summary(r, kSteadyMinShare);
  add_quality_summary(r);
}

ExperimentDef<OccupancyConfig> occupancy_experiment() {
  ExperimentDef<OccupancyConfig> d{
      "occupancy", {}, "sweep",
      "k-way penalty T(32)/T(1) vs. warps per SM (1..max on every SM, then 2 and 4 waves) from launch-overhead-"
      "corrected kernel times (Figure 3)",
      parse, to_json, nullptr, plan, finalize, nullptr};
  d.headline = {{"penalty_min", "x", "T(k)/T(1) of whole kernels, the smallest over the residencies"},
                {"penalty_max", "x", "the largest"},
                {"launch_overhead_ms", "ms", "an empty kernel's time, subtracted from each kernel's"}};
  d.axes = {{{"series", AxisType::string, "", "", "resident (one wave) or oversubscribed (several waves)",
              AxisLabel::bare},
             [](const OccupancyConfig&) { return json{"resident", "oversubscribed"}; }},
            // The device sets these: its maximum warps per SM ends the series (plan_residency).
            {{"warps_per_sm", AxisType::integer, "warps per SM", "", "resident warps on every SM"},
             [](const OccupancyConfig&) { return json("1, 2, 4, ... up to the device's maximum warps per SM"); }},
            {{"waves", AxisType::integer, "waves", "", "the resident grid's size launched this many times over"},
             [](const OccupancyConfig&) {
               json w{1};
               for (int x : kWaves) w.push_back(x);
               return w;
             }},
            {k_axis("paths: 1 and the divergent k"),
             [](const OccupancyConfig& c) { return json{1, c.k_divergent}; }}};
  SettingSpec k{"--k", SettingType::list, "32", "paths", "the divergent k, one value 2..32 (its penalty is T(k)/T(1))"};
  k.parse = [](const std::string& t) { return json(parse_k_list(t)); };
  d.settings = joined({work_settings(), {k, reps_setting().with_default(std::to_string(kDefaultOccupancyLaunches)), warmup_setting()}});
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(occupancy_experiment);

}  // namespace divbench
