// --sweep memory: what one pass of a global load costs as a function of the sectors it touches, per
// memory level (memory.cu here). One warp per SM chases pointers with `lanes` of its lanes active, each
// lane on its own chain (one 32-byte sector per lane and load), for n1 and n2 dependent loads; the
// cycles per load a = (T(n2) - T(n1)) / (n2 - n1) (the code around the chase differenced away), and per
// level the least-squares line a = fixed + per_sector x lanes. `divbench attribute` splits a sampled
// load wait with it: a pass with fewer lanes (what divergence adds) fetches fewer sectors, so only the
// fixed part of a pass is lost to divergence (docs/attribute.md, step 6).
#include <algorithm>

#include "divbench/core/errors.hpp"
#include "divbench/cuda/occupancy.hpp"
#include "divbench/core/fit.hpp"
#include "experiments/memory/launcher.hpp"
#include "divbench/summary/iteration_cost.hpp"
#include "divbench/summary/quality.hpp"
#include "harness/common_settings.hpp"
#include "harness/config.hpp"
#include "harness/experiment.hpp"
#include "harness/timed_point.hpp"

namespace divbench {
namespace {

const std::vector<int> kLanes{1, 2, 4, 8, 12, 16, 20, 24, 28, 32};
// Warps resident per SM: 1 is the curve attribute's memory rule reads (summary.levels); the others say how
// the curve changes with occupancy (summary.occupancy), which the rule does not model.
const std::vector<int> kWarps{1, 4, 16};

struct MemoryConfig {
  std::vector<std::string> levels;
  std::vector<int> lanes;
  std::vector<int> warps;         // warps per SM (one block per SM of that many warps)
  std::vector<std::uint32_t> ns;  // two load counts per lane
  TimingConfig timing;
};

MemoryConfig parse(const SettingValues& o) {
  MemoryConfig c;
  for (const auto& l : memory_levels()) c.levels.push_back(l.name);
  c.lanes = kLanes;
  c.warps = kWarps;
  c.ns = o.counts("--n");
  std::sort(c.ns.begin(), c.ns.end());
  c.ns.erase(std::unique(c.ns.begin(), c.ns.end()), c.ns.end());
  if (c.ns.size() != 2 || c.ns[0] == 0)
    throw UsageError("--sweep memory: --n takes two different positive load counts (e.g. 64,320)");
  if (c.ns[1] > 4096) throw UsageError("--sweep memory: --n at most 4096 loads per lane (the L1 table's size)");
  c.timing = parse_timing(o, Body::fma_chain);  // warp-per-SM unless --sampling says otherwise
  return c;
}

json to_json(const MemoryConfig& c) {
  json j{{"model", "a = (T(n2) - T(n1)) / (n2 - n1) cycles per dependent load, per level and active lanes; "
                   "per level a = fixed + per_sector x lanes (one sector per lane)"},
         {"body", "memory_lanes"},  // its noise class: a memory body's (data/noise_criterion.json memory_bodies)
         {"levels", c.levels},
         {"lanes", c.lanes},
         {"warps_per_sm", c.warps},
         {"ns", c.ns}};
  json sizes = json::object();
  for (const auto& l : memory_levels()) sizes[l.name] = std::uint64_t{l.nodes} * 4;
  j["table_bytes"] = sizes;
  j.update(to_json(c.timing));
  return j;
}

std::vector<PointSpec> plan(const MemoryConfig& c, const DeviceRecord& dev) {
  std::vector<PointSpec> pts;
  const TimedRun run{c.timing, std::nullopt, false};
  for (int w : c.warps) {
    // One warp per SM: the sampling the configuration names. More: a fixed grid of one block of w warps
    // on every SM (pinned by shared memory), each launch reduced to the median of its warps.
    TimedRun at = run;
    if (w > 1) at.shape = LaunchShape{dev.sm_count, 32 * w, smem_to_pin_blocks_per_sm(dev.index, 1)};
    for (const auto& level : c.levels)
      for (int lanes : c.lanes)
        for (std::uint32_t n : c.ns)
          pts.push_back(timed_point_spec({{"level", level}, {"lanes", lanes}, {"n", n}, {"warps_per_sm", w}},
                                         memory_timed_kernel(level, lanes, n), at, dev, 1, {{"loads_per_lane", n}}));
  }
  return pts;
}

// Per level, the cycles per load against the lanes at `warps` warps per SM (a file before the warps axis:
// its points count as 1).
json level_curves(const MemoryConfig& c, const ResultRecord& r, int warps) {
  json levels = json::array();
  for (const auto& level : c.levels) {
    json per = json::array();
    std::vector<double> x, y;
    for (int lanes : c.lanes) {
      std::vector<const TimedPoint*> pts;
      for (const auto& p : r.points)
        if (p.axes.value("level", "") == level && p.axes.value("lanes", -1) == lanes && p.axes.value("warps_per_sm", 1) == warps)
          pts.push_back(&p);
      const std::optional<IterationCost> a = iteration_cost(pts);
      if (!a) continue;
      per.push_back(json{{"lanes", lanes}, {"cycles_per_load", a->c}, {"t1", a->t1}, {"t2", a->t2}});
      x.push_back(lanes);
      y.push_back(a->c);
    }
    json entry{{"level", level}, {"per_lanes", per}};
    if (x.size() >= 2) {
      const LinearFit f = fit_linear(x, y);
      entry["fixed_cycles"] = f.c;
      entry["cycles_per_sector"] = f.s;
      entry["r2"] = f.r2;
      entry["max_rel_residual"] = f.max_rel_residual;
    }
    levels.push_back(entry);
  }
  return levels;
}

void finalize(const MemoryConfig& c, ResultRecord& r) {
  r.summary["levels"] = level_curves(c, r, 1);
  json occupancy = json::array();
  for (int w : c.warps)
    if (w > 1) occupancy.push_back(json{{"warps_per_sm", w}, {"levels", level_curves(c, r, w)}});
  r.summary["occupancy"] = occupancy;
  if (c.timing.sampling == Sampling::warp_per_sm)
    r.summary["noise_check"] =
        "not judged for spread: the noise criterion has no quiet level for warp-per-SM or grid points of a body "
        "that touches memory; co-tenants and throttling are judged";
  add_quality_summary(r);
}

ExperimentDef<MemoryConfig> memory_experiment() {
  ExperimentDef<MemoryConfig> d{"memory", {}, "sweep",
                                "cycles of a dependent global load against the lanes (sectors) it fetches, per memory "
                                "level: the memory rule of divbench attribute",
                                parse, to_json, nullptr, plan, finalize, [](const MemoryConfig& c) {
                                  std::vector<std::string> notes;
                                  if (c.timing.sampling == Sampling::warp_per_sm)
                                    notes.push_back(
                                        "the noise criterion (data/noise_criterion.json) has no quiet level for warp-per-SM "
                                        "or grid points of a body that touches memory: these points are judged for "
                                        "co-tenants and throttling, not for their spread (repeat the sweep and compare)");
                                  return notes;
                                }};
  d.headline = {{"noise_check", "", "how the points' spread was judged"},
                {"max_cv", "", "the largest coefficient of variation of a point's samples"}};
  d.in_all = false;
  AxisSpec level("level", AxisType::string, "", "", "the memory level the table's size puts the loads in (dram, l2, l1)",
                 AxisLabel::bare);
  AxisSpec lanes("lanes", AxisType::integer, "lanes", "", "active lanes of the warp, each on its own chain");
  AxisSpec warps("warps_per_sm", AxisType::integer, "warps", "", "warps resident per SM, each chasing (1: the curve the rule reads)");
  d.axes = {{level, [](const MemoryConfig& c) { return json(c.levels); }},
            {lanes, [](const MemoryConfig& c) { return json(c.lanes); }},
            {n_axis("--n"), [](const MemoryConfig& c) { return json(c.ns); }},
            {warps, [](const MemoryConfig& c) { return json(c.warps); }}};
  d.settings = joined({{iterations_setting().with_default("64,320").with_help(
                           "Dependent loads per lane: two counts, differenced (at most 4096, the L1 table's size)")},
                       timing_settings()});
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(memory_experiment);

}  // namespace divbench
