// --sweep cost: the cost decomposition T(k, n) = k * (a*n + b) + c. For every body, every code
// placement, every n (iterations per path, 0 included: b measured directly) and every k, one warp's
// region; least squares per body and placement; a, b, c reported as the median over placements with
// min and max, and a beside what the body's loop in this binary's SASS predicts (a_predicted).
// s of the k sweep mixes the two costs (s = a*n + b). Every point runs in the divergent kernel and
// in the no-divergence control (axis region; kway_control_kernel: the same loop over k paths, every
// lane on every path, reading one parameter slot), whose b is the loop over paths alone (b_loop);
// b - b_loop is what the divergent kernel pays per path beyond it (b_divergence). A compute body's
// n = 0 points also run in one more control kernel twice, reading slot q at step q as the divergent
// kernel does and slot 0 throughout (kway_control_slots_kernel): the difference of their slopes is
// what reading a new parameter slot per path costs, and splits b_divergence into that and the
// divergent branch (experiments/cost/summary.hpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "divbench/core/errors.hpp"
#include "experiments/kway/launcher.hpp"
#include "experiments/cost/summary.hpp"
#include "divbench/summary/kway_fit.hpp"
#include "divbench/summary/quality.hpp"
#include "divbench/summary/loop_shape.hpp"
#include "harness/common_settings.hpp"
#include "harness/config.hpp"
#include "harness/experiment.hpp"
#include "experiments/cost/loop_prediction.hpp"
#include "harness/timed_point.hpp"
#include "divbench/model/loop_cost.hpp"

namespace divbench {
namespace {

struct CostConfig {
  std::vector<Body> bodies;
  std::vector<int> ks;                  // compute bodies
  std::vector<int> ks_memory;           // bodies that touch memory (single sampling: fewer points)
  std::vector<std::uint32_t> ns;        // compute bodies
  std::vector<std::uint32_t> ns_memory; // bodies that touch memory
  std::vector<int> placements;
  TimingConfig timing;                  // reps, warmup, samples; sampling per body unless --sampling
  bool sampling_given = false;
  int reps_memory = 51;                 // samples per point of bodies that touch memory (single launches)
  std::string loop_cost;                // --loop-cost: constants of a_predicted ("" = the committed file)
};

CostConfig parse(const SettingValues& o) {
  CostConfig c;
  if (o.has("--body")) c.bodies = {parse_body(o.text("--body"))};
  else c.bodies = all_bodies();
  // The declared defaults are the compute bodies'; the memory bodies (single sampling, slower) run fewer.
  c.ks = o.ints("--k");
  c.ks_memory = o.has("--k") ? c.ks : std::vector<int>{1, 2, 4, 8, 16, 32};
  c.ns = o.counts("--n");
  c.ns_memory = o.has("--n") ? c.ns : std::vector<std::uint32_t>{0, 100, 300, 1000};
  if (c.ks.size() < 2) throw UsageError("--sweep cost needs at least two values of k");
  if (c.ns.size() < 2) throw UsageError("--sweep cost needs at least two values of --n (e.g. 0,1000,3000,10000)");
  c.placements = parse_placements(o);  // every placement by default: the control is checked at each
  c.timing = parse_timing(o, Body::fma_chain);
  c.sampling_given = o.has("--sampling");
  if (o.has("--reps")) c.reps_memory = c.timing.reps;
  if (o.has("--loop-cost")) {  // read now: a file that is not there or not constants is bad input (exit 2)
    if (const auto loaded = model::load_constants(o.text("--loop-cost")); !loaded)
      throw UsageError("--loop-cost: " + loaded.error());
    c.loop_cost = o.text("--loop-cost");
  }
  return c;
}

bool memory_body(Body b) { return body_touches_memory(b); }

// The regions each point runs in: the divergent kernel and the control for every body; for the
// compute bodies (whose b is published; a memory body's fit is not linear in n) at n = 0 also the two
// runs of the slot control, which split b_divergence (experiments/cost/summary.hpp).
std::vector<KwayRegion> regions_of(Body b, std::uint32_t n) {
  if (memory_body(b) || n != 0) return {KwayRegion::divergent, KwayRegion::control};
  return {KwayRegion::divergent, KwayRegion::control, KwayRegion::control_slot_q, KwayRegion::control_slot_0};
}

Sampling sampling_of(const CostConfig& c, Body b) { return c.sampling_given ? c.timing.sampling : default_sampling(b); }

json to_json(const CostConfig& c) {
  json sampling = json::object();
  for (Body b : c.bodies) sampling[body_name(b)] = sampling_name(sampling_of(c, b));
  json j{
         {"model", "T(k, n) = k * (a*n + b) + c, least squares per body, placement and region (divergent; control: no divergence)"},
         {"bodies", axis_names(c.bodies, body_name)},
         {"ks", c.ks},
         {"ns", c.ns},
         {"ks_memory_bodies", c.ks_memory},
         {"ns_memory_bodies", c.ns_memory},
         {"reps_memory_bodies", c.reps_memory},
         {"map", "modulo"},
         {"placements", c.placements}};
  j.update(to_json(c.timing));
  j["sampling"] = sampling;
  j["loop_cost"] = c.loop_cost.empty() ? json(nullptr) : json(c.loop_cost);  // null: the committed constants
  return j;
}

std::vector<PointSpec> plan(const CostConfig& c, const DeviceRecord& dev) {
  std::vector<PointSpec> pts;
  for (Body body : c.bodies) {
    TimingConfig timing = c.timing;
    timing.sampling = sampling_of(c, body);
    if (memory_body(body)) timing.reps = c.reps_memory;
    const auto& ns = memory_body(body) ? c.ns_memory : c.ns;
    const auto& ks = memory_body(body) ? c.ks_memory : c.ks;
    for (int placement : c.placements)
      for (std::uint32_t n : ns)
        for (int k : ks) {
          LaneAssignment lanes = assign_lanes(LaneMap::modulo, k, n == 0 ? 1 : n, 0);
          if (n == 0) lanes.iters_of_path.fill(0);
          const TimedRun run{timing, std::nullopt, false};
          for (KwayRegion region : regions_of(body, n)) {
            const char* name = kway_region_name(region);
            const TimedKernel kernel =
                region == KwayRegion::divergent
                    ? kway_timed_kernel(body, make_kway_params(body, k, lanes), placement)
                    : kway_control_timed_kernel(body, make_kway_control_params(body, k, n, region), placement, region);
            pts.push_back(timed_point_spec(
                {{"body", body_name(body)}, {"placement", placement}, {"n", n}, {"k", k}, {"region", name}}, kernel,
                run, dev, k, {{"body", body_name(body)}, {"iters_per_path", n}, {"region", name}}));
          }
        }
  }
  return pts;
}

// The points of one body, placement and region. Points without a region (results written before the
// control) are the divergent kernel's.
std::vector<const TimedPoint*> region_points(const ResultRecord& r, Body body, int placement, const std::string& region) {
  std::vector<const TimedPoint*> out;
  for (const auto& p : r.points)
    if (p.axes.value("body", "") == body_name(body) && p.axes.value("placement", -1) == placement &&
        p.axes.value("region", "divergent") == region)
      out.push_back(&p);
  return out;
}

// The fit of one body, placement and region over its points; nullopt without points.
std::optional<CostFit> fit_region(const ResultRecord& r, Body body, int placement, const std::string& region) {
  std::vector<CostSample> samples;
  for (const TimedPoint* p : region_points(r, body, placement, region))
    samples.push_back({p->k, p->axes["n"].get<double>(), p->cycles.median});
  if (samples.empty()) return std::nullopt;
  return fit_cost(samples);
}

// The slope in k of one body, placement and region's points (the slot control's: n = 0 only).
std::optional<double> slope_of_region(const ResultRecord& r, Body body, int placement, const std::string& region) {
  std::vector<std::pair<double, double>> points;
  for (const TimedPoint* p : region_points(r, body, placement, region)) points.emplace_back(p->k, p->cycles.median);
  return slope_in_k(points);
}

// Whether a control's loops (over paths, and the work loop) equal the divergent kernel's at every
// placement in the SASS the device runs (the build's kernel facts): b_loop is the loop over paths only
// where they do. null with why when the facts or the architecture's cubin are missing.
json control_loops_equal(const ResultRecord& r, Body body, const std::vector<int>& placements, KwayRegion control) {
  const DeviceFacts df = running_facts_for_device(r.device.cc_major, r.device.cc_minor);
  if (!df) return json{{"equal", nullptr}, {"why", df.why}};
  const json* facts = df.facts;
  const std::optional<int> sm = df.sm;
  json problems = json::array();
  try {
    for (int placement : placements) {
      const std::string div = kway_kernel_needle(body, placement, KwayRegion::divergent),
                        ctl = kway_kernel_needle(body, placement, control);
      for (const auto& p : equal_shape_problems(enclosing_loop_shape(*facts, *sm, div),
                                                enclosing_loop_shape(*facts, *sm, ctl), "loop over paths"))
        problems.push_back("placement " + std::to_string(placement) + ": " + p);
      for (const auto& p : equal_shape_problems(work_loop_shape(*facts, *sm, div), work_loop_shape(*facts, *sm, ctl),
                                                "work loop"))
        problems.push_back("placement " + std::to_string(placement) + ": " + p);
    }
  } catch (const std::runtime_error& e) {
    return json{{"equal", nullptr}, {"why", e.what()}};
  }
  return json{{"equal", problems.empty()}, {"sm", *sm}, {"problems", problems}};
}

void finalize(const CostConfig& c, ResultRecord& r) {
  json bodies = json::array();
  bool first = true;
  for (Body body : c.bodies) {
    std::vector<PlacementCost> fits;
    for (int placement : c.placements) {
      const std::optional<CostFit> f = fit_region(r, body, placement, "divergent");
      if (f)
        fits.push_back({placement, *f, fit_region(r, body, placement, "control"),
                        slope_of_region(r, body, placement, "control_slot_q"),
                        slope_of_region(r, body, placement, "control_slot_0")});
    }
    if (fits.empty()) continue;
    json entry{{"body", body_name(body)}, {"sampling", sampling_name(sampling_of(c, body))}};
    entry.update(cost_body_json(fits));
    const bool linear = entry["linear_in_n"].get<bool>();
    if (!entry["b_loop_cycles_per_path"].is_null()) {
      const json eq = control_loops_equal(r, body, c.placements, KwayRegion::control);
      entry["control_loops_equal"] = eq["equal"];
      entry["control_loops"] = eq;
    }

    const LoopPrediction pred = predict_loop_cost(r.device, body, c.loop_cost);
    entry["a_predicted"] = pred.available ? json(pred.a) : json(nullptr);
    entry["a_rel_err"] = pred.available && linear ? json(pred.a / entry["a"].get<double>() - 1) : json(nullptr);
    entry["a_prediction"] = pred.detail;
    if (first) {
      // The first body's decomposition under the summary's own names.
      r.summary["body"] = body_name(body);
      const std::pair<const char*, const char*> names[] = {
          {"a", "a_cycles_per_iter"}, {"b", "b_cycles_per_path"}, {"c", "c_cycles"}, {"r2", "r2"}};
      for (const auto& [from, to] : names)
        for (const char* suffix : {"", "_min", "_max"})
          r.summary[std::string(to) + suffix] = entry[std::string(from) + suffix];
      for (const char* key : {"a_se", "b_direct", "b_cycles_per_path_se", "b_loop_cycles_per_path",
                              "b_loop_cycles_per_path_min", "b_loop_cycles_per_path_max", "b_loop_cycles_per_path_se",
                              "b_divergence_cycles_per_path", "b_divergence_cycles_per_path_min",
                              "b_divergence_cycles_per_path_max", "b_divergence_cycles_per_path_se",
                              "b_param_reads_cycles_per_path", "b_param_reads_cycles_per_path_min",
                              "b_param_reads_cycles_per_path_max", "b_branch_cycles_per_path",
                              "b_branch_cycles_per_path_min", "b_branch_cycles_per_path_max",
                              "b_branch_cycles_per_path_se"})
        r.summary[key] = entry[key];
      first = false;
    }
    bodies.push_back(entry);
  }
  r.summary["bodies"] = bodies;
  add_quality_summary(r);
}

// The union of two lists, sorted (an axis's values over the compute and the memory bodies).
template <class T>
json merged(std::vector<T> a, const std::vector<T>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return json(a);
}

ExperimentDef<CostConfig> cost_experiment() {
  ExperimentDef<CostConfig> d{"cost", {}, "sweep",
                              "cost decomposition T(k,n) = k*(a*n + b) + c per body and code placement", parse,
                              to_json, nullptr, plan, finalize, nullptr};
  d.headline = {{"a_cycles_per_iter", "cycles/iteration", "a of T(k,n) = k*(a*n + b) + c, median over placements"},
                {"b_cycles_per_path", "cycles/path", "b, the cost of a path beyond its iterations"},
                {"c_cycles", "cycles", "c, the fixed cost of the region"}};
  d.in_all = false;
  AxisSpec placement = placement_axis();
  placement.label = AxisLabel::keyed;
  d.axes = {{body_axis(), [](const CostConfig& c) { return axis_names(c.bodies, body_name); }},
            {placement, [](const CostConfig& c) { return json(c.placements); }},
            {n_axis("--n"), [](const CostConfig& c) { return merged(c.ns, c.ns_memory); }},
            {k_axis(), [](const CostConfig& c) { return merged(c.ks, c.ks_memory); }},
            {AxisSpec("region", AxisType::string, "", "",
                      "divergent: the k-way kernel; control: the same loop over k paths, every lane on every path, "
                      "reading one parameter slot; control_slot_q and control_slot_0 (compute bodies, n = 0): one "
                      "control kernel reading slot q at step q as the divergent kernel does, or slot 0 throughout",
                      AxisLabel::bare),
             [](const CostConfig&) {
               return json::array({"divergent", "control", "control_slot_q", "control_slot_0"});
             }}};
  SettingSpec loop_cost{"--loop-cost", SettingType::text, "", "",
                        "Loop-cost constants (divbench.loop_cost/1) for the cost sweep's a_predicted (default: the "
                        "committed results/h200/loop_cost.json, found from the executable)"};
  d.settings = joined({{body_setting(), placements_setting().with_default(std::to_string(kPlacements)),
                        iterations_setting().with_default("0,1000,3000,10000"), paths_setting(), loop_cost},
                       timing_settings()});
  d.inputs = [](const CostConfig& c) { return c.loop_cost.empty() ? std::vector<std::string>{} : std::vector<std::string>{c.loop_cost}; };
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(cost_experiment);

}  // namespace divbench
