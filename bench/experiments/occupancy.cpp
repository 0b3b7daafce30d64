// --sweep occupancy: the k-way penalty T(k)/T(1) (k = 32 unless --k K) while residency grows, on two
// axes: resident warps on the device (2^8 .. 2^12, the paper's Figure 3: blocks of 8 warps, spread by
// the block scheduler) and warps per SM (1 .. the hardware maximum: one or two blocks per SM, pinned
// by reserving dynamic shared memory so that exactly that many blocks fit, checked with the occupancy
// API). Every point reports the per-warp region penalty (median over warps, then over launches), the
// whole-kernel penalty from CUDA events (throughput view), and where the warps ran (%smid).
#include <algorithm>
#include <cmath>

#include "divbench/core/errors.hpp"
#include "divbench/cuda/occupancy.hpp"
#include "divbench/kernels/kway.hpp"
#include "divbench/summary/quality.hpp"
#include "harness/config.hpp"
#include "harness/experiment.hpp"
#include "harness/timed_point.hpp"

namespace divbench {
namespace {

struct OccupancyConfig {
  int k_divergent = 32;  // the k whose penalty over k = 1 is measured
  WorkConfig work;
  TimingConfig timing;   // reps = launches of each grid
};

struct Residency {
  std::string series;         // "device" or "per_sm"
  int target = 0;             // total warps (device) or warps per SM (per_sm)
  LaunchShape shape;
  int theoretical_blocks_per_sm = 0;  // occupancy API
};

OccupancyConfig parse(const RunOptions& o) {
  OccupancyConfig c;
  c.work = parse_work(o);
  c.timing = parse_timing(o, c.work.body);
  if (!o.all) {
    if (o.ks.size() > 1) throw UsageError("--sweep occupancy takes one --k value (the divergent k, default 32)");
    if (!o.ks.empty() && o.ks.front() < 2)
      throw UsageError("--sweep occupancy: --k must be at least 2 (the penalty is T(k)/T(1))");
    if (!o.ks.empty()) c.k_divergent = o.ks.front();
    reject_options(o, "--sweep occupancy", {"--sampling", "--placements", "--n"},
                   "the occupancy sweep owns its launch shapes, at placement 0");
  }
  // Under --all, --k is the k sweep's list: the occupancy sweep keeps k = 32.
  return c;
}

json to_json(const OccupancyConfig& c) {
  json j{{"axis", "residency"}, {"k_divergent", c.k_divergent}};
  j.update(to_json(c.work));
  j["reps"] = c.timing.reps;
  j["warmup"] = warmup_launches(c.timing, true);
  j["sampling"] = "grid: every launch runs the residency's whole grid; each launch reduced to the median of its warps";
  j["samples_kept"] = c.timing.keep_samples;
  j["device_series_warps"] = {256, 512, 1024, 2048, 4096};
  j["per_sm_series"] = "1, 2, 4, ... max warps per SM: 1 block of <=32 warps or 2 blocks of 32 per SM, "
                       "pinned by dynamic shared memory";
  j["penalties"] = {{"region", "median over warps of clock64 region cycles, median over launches"},
                    {"kernel", "CUDA-event time of the whole launch, median over launches"}};
  return j;
}

std::vector<Residency> plan_residency(const DeviceRecord& d, const TimedKernel& kernel) {
  std::vector<Residency> out;
  const int max_warps_sm = d.max_threads_per_sm / 32;
  // Device-wide: 2^8 .. 2^12 resident warps, 8-warp blocks, no shared memory.
  for (int w = 256; w <= 4096; w *= 2) {
    Residency r{"device", w, LaunchShape{w / 8, 256, 0}, 0};
    r.theoretical_blocks_per_sm = kernel.blocks_per_sm(r.shape);
    if (static_cast<long>(r.theoretical_blocks_per_sm) * d.sm_count < r.shape.blocks)
      throw std::runtime_error("occupancy: " + std::to_string(w) + " warps do not fit on the device at once");
    out.push_back(r);
  }
  // Per SM: one block of w warps per SM (w <= 32), or two blocks of 32 warps (w = 64).
  for (int w = 1; w <= max_warps_sm; w *= 2) {
    const int per_block = std::min(w, 32);
    const int n = w / per_block;  // blocks per SM
    Residency r{"per_sm", w, LaunchShape{n * d.sm_count, per_block * 32, smem_to_pin_blocks_per_sm(d.index, n)}, 0};
    r.theoretical_blocks_per_sm = kernel.blocks_per_sm(r.shape);
    if (r.theoretical_blocks_per_sm != n)
      throw std::runtime_error("occupancy: could not pin " + std::to_string(n) + " block(s) of " +
                               std::to_string(per_block) + " warps per SM with " + std::to_string(r.shape.dynamic_smem) +
                               " B of shared memory (the occupancy API allows " +
                               std::to_string(r.theoretical_blocks_per_sm) + ")");
    out.push_back(r);
  }
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
  return json{{"series", r.series},
              {"target", r.target},
              {"total_warps", r.shape.warps()},
              {"blocks", r.shape.blocks},
              {"threads_per_block", r.shape.threads_per_block},
              {"dynamic_smem", r.shape.dynamic_smem},
              {"theoretical_blocks_per_sm", r.theoretical_blocks_per_sm},
              {"theoretical_occupancy",
               std::min(1.0, r.theoretical_blocks_per_sm * (r.shape.threads_per_block / 32.0) / max_warps_sm)},
              {"sms_used", used.size()},
              {"warps_per_sm", json{{"min", mn}, {"median", med}, {"max", mx}}},
              // All blocks fit at once (checked), so the warps an SM ran are the warps it held.
              {"achieved_occupancy", med / max_warps_sm}};
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
      const std::string label = r.series + "/warps:" + std::to_string(r.target) + "/k:" + std::to_string(k);
      pts.push_back(PointSpec{label,
                              [kernel, run, r, dev, k] {
                                PointResult pr = run_timed_point(kernel, run, dev, k);
                                pr.point.extra["residency"] = residency_json(r, dev, pr.point.extra["sm_warps"]);
                                return pr;
                              },
                              launch_once(kernel), launch_once(kernel_for(k, true))});
    }
  }
  return pts;
}

void finalize(const OccupancyConfig&, ResultRecord& r) {
  json pairs = json::array();
  double pmin = INFINITY, pmax = 0, kmin = INFINITY, kmax = 0;
  for (const auto& lo : r.points) {
    if (lo.k != 1) continue;
    const json& rl = lo.extra["residency"];
    for (const auto& hi : r.points) {
      const json& rh = hi.extra["residency"];
      if (hi.k == 1 || rh["series"] != rl["series"] || rh["target"] != rl["target"]) continue;
      const double region = hi.cycles.median / lo.cycles.median;
      const double kernel = hi.extra["kernel_ms"]["median"].get<double>() / lo.extra["kernel_ms"]["median"].get<double>();
      pmin = std::min(pmin, region);
      pmax = std::max(pmax, region);
      kmin = std::min(kmin, kernel);
      kmax = std::max(kmax, kernel);
      pairs.push_back(json{{"series", rl["series"]},
                           {"target", rl["target"]},
                           {"total_warps", rl["total_warps"]},
                           {"k", hi.k},
                           {"region_penalty", region},
                           {"kernel_penalty", kernel},
                           {"achieved_occupancy", rl["achieved_occupancy"]},
                           {"sms_used", rl["sms_used"]}});
    }
  }
  if (pairs.empty()) return;
  r.summary["penalty_min"] = pmin;
  r.summary["penalty_max"] = pmax;
  r.summary["kernel_penalty_min"] = kmin;
  r.summary["kernel_penalty_max"] = kmax;
  add_quality_summary(r);
  r.summary["pairs"] = pairs;
}

Experiment occupancy_experiment() {
  return make_experiment<OccupancyConfig>(
      {"occupancy", {}, "sweep", "k-way penalty T(32)/T(1) vs. resident warps (device 2^8..2^12, per SM 1..max) (Figure 3)",
       parse, to_json, nullptr, plan, finalize, nullptr});
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(occupancy_experiment);

}  // namespace divbench
