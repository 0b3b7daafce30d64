// --sweep occupancy: the k-way penalty T(k)/T(1) (k = 32 unless --k K) while residency grows, on two
// axes: resident warps on the device (2^8 .. 2^12, the paper's Figure 3: blocks of 8 warps, spread by
// the block scheduler) and warps per SM (1 .. the hardware maximum: one or two blocks per SM, pinned
// by reserving dynamic shared memory so that exactly that many blocks fit, checked with the occupancy
// API). Every point reports the per-warp region penalty (median over warps, then over launches), the
// whole-kernel penalty from CUDA events (throughput view), and where the warps ran (%smid).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>

#include "divbench/core/errors.hpp"
#include "divbench/cuda/check.hpp"
#include "harness/experiment.hpp"
#include "harness/quality.hpp"
#include "harness/kway_point.hpp"

namespace divbench {
namespace {

struct Residency {
  std::string series;         // "device" or "per_sm"
  int target = 0;             // total warps (device) or warps per SM (per_sm)
  int blocks = 0;
  int threads_per_block = 0;
  std::size_t dynamic_smem = 0;
  int theoretical_blocks_per_sm = 0;  // occupancy API
};

int divergent_k(const RunOptions& o) { return o.ks.empty() ? 32 : o.ks.front(); }

int attr(cudaDeviceAttr a, int dev) {
  int v = 0;
  DIVBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

std::vector<Residency> plan_residency(const DeviceRecord& d, Body body) {
  std::vector<Residency> out;
  const int max_warps_sm = d.max_threads_per_sm / 32;
  // Device-wide: 2^8 .. 2^12 resident warps, 8-warp blocks, no shared memory.
  for (int w = 256; w <= 4096; w *= 2) {
    Residency r{"device", w, w / 8, 256, 0, 0};
    r.theoretical_blocks_per_sm = kway_max_active_blocks(body, r.threads_per_block, 0);
    if (static_cast<long>(r.theoretical_blocks_per_sm) * d.sm_count < r.blocks)
      throw std::runtime_error("occupancy: " + std::to_string(w) + " warps do not fit on the device at once");
    out.push_back(r);
  }
  // Per SM: one block of w warps per SM (w <= 32), or two blocks of 32 warps (w = 64).
  const int smem_sm = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, d.index);
  const int smem_optin = attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, d.index);
  const int reserved = attr(cudaDevAttrReservedSharedMemoryPerBlock, d.index);
  for (int w = 1; w <= max_warps_sm; w *= 2) {
    const int per_block = std::min(w, 32);
    const int n = w / per_block;  // blocks per SM
    Residency r{"per_sm", w, n * d.sm_count, per_block * 32, 0, 0};
    r.dynamic_smem = static_cast<std::size_t>(std::min(smem_optin, smem_sm / n - reserved));
    r.theoretical_blocks_per_sm = kway_max_active_blocks(body, r.threads_per_block, r.dynamic_smem);
    if (r.theoretical_blocks_per_sm != n)
      throw std::runtime_error("occupancy: could not pin " + std::to_string(n) + " block(s) of " +
                               std::to_string(per_block) + " warps per SM with " + std::to_string(r.dynamic_smem) +
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
              {"total_warps", r.blocks * r.threads_per_block / 32},
              {"blocks", r.blocks},
              {"threads_per_block", r.threads_per_block},
              {"dynamic_smem", r.dynamic_smem},
              {"theoretical_blocks_per_sm", r.theoretical_blocks_per_sm},
              {"theoretical_occupancy",
               std::min(1.0, r.theoretical_blocks_per_sm * (r.threads_per_block / 32.0) / max_warps_sm)},
              {"sms_used", used.size()},
              {"warps_per_sm", json{{"min", mn}, {"median", med}, {"max", mx}}},
              // All blocks fit at once (checked), so the warps an SM ran are the warps it held.
              {"achieved_occupancy", med / max_warps_sm}};
}

Experiment occupancy_experiment() {
  Experiment e;
  e.name = "occupancy";
  e.kind = "sweep";
  e.help = "k-way penalty T(32)/T(1) vs. resident warps (device 2^8..2^12, per SM 1..max) (Figure 3)";
  e.validate = [](const RunOptions& o) {
    parse_body(o.body);
    parse_lane_map(o.map);
    if (!o.all && o.ks.size() > 1)
      throw UsageError("--sweep occupancy takes one --k value (the divergent k, default 32)");
    if (!o.ks.empty() && !o.all && o.ks.front() < 2)
      throw UsageError("--sweep occupancy: --k must be at least 2 (the penalty is T(k)/T(1))");
  };
  e.result_name = [](const RunOptions&) { return std::string("occupancy"); };
  e.config = [](const RunOptions& o) {
    return json{{"axis", "residency"},
                {"k_divergent", divergent_k(o)},
                {"reps", o.reps},
                {"warmup", o.warmup},
                {"iters", o.iters},
                {"body", o.body},
                {"map", o.map},
                {"device_series_warps", {256, 512, 1024, 2048, 4096}},
                {"per_sm_series", "1, 2, 4, ... max warps per SM: 1 block of <=32 warps or 2 blocks of 32 per SM, "
                                  "pinned by dynamic shared memory"},
                {"penalties", {{"region", "median over warps of clock64 region cycles, median over launches"},
                               {"kernel", "CUDA-event time of the whole launch, median over launches"}}}};
  };
  e.plan = [](const RunContext& ctx) {
    const RunOptions o = ctx.opts;
    const DeviceRecord dev = ctx.device;
    const Body body = parse_body(o.body);
    // --all with a --k list meant for the k sweep: fall back to 32.
    const int kdiv = (o.ks.size() == 1 && o.ks.front() >= 2) ? o.ks.front() : 32;
    std::vector<PointSpec> pts;
    for (const Residency& r : plan_residency(dev, body)) {
      for (int k : {1, kdiv}) {
        KwayPointSpec s;
        s.body = body;
        s.k = k;
        s.lanes = assign_lanes(parse_lane_map(o.map), k, static_cast<std::uint32_t>(o.iters), o.seed);
        s.blocks = r.blocks;
        s.threads_per_block = r.threads_per_block;
        s.dynamic_smem = r.dynamic_smem;
        s.kernel_events = true;
        s.plan.warmup = o.warmup;
        s.plan.reps = o.reps;
        const std::string label = r.series + "/warps:" + std::to_string(r.target) + "/k:" + std::to_string(k);
        pts.push_back(PointSpec{label,
                                [s, r, dev] {
                                  PointResult pr = run_kway_point(s);
                                  pr.point.extra["residency"] = residency_json(r, dev, pr.point.extra["sm_warps"]);
                                  return pr;
                                },
                                kway_launch_once(s), kway_launch_twin(s)});
      }
    }
    return pts;
  };
  e.finalize = [](const RunContext&, ResultRecord& r) {
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
  };
  return e;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(occupancy_experiment);

}  // namespace divbench
