// --probe lock: the 32 lanes of one warp contend for one spin lock (the paper's Section IV-E), in two
// shapes: the release inside the acquiring branch (the paper's lock) and the classic shape that
// deadlocks under a SIMT stack (spin loop, then critical section and release after it). Every spin
// is capped; mutual exclusion and the critical sections' results are checked on the host.
// In the first round one lane wins the CAS (the group) and 31 fail (the rest); which side of that
// branch entered first goes into the order probe's fields. The two sides are inlined code, not
// call sites, so the SASS facts cannot name them: group_side is null, and `form` keeps its meaning
// here (the lock's code shape).
#include <algorithm>
#include <cstring>
#include <set>

#include "divbench/core/errors.hpp"
#include "divbench/core/lane_group.hpp"
#include "divbench/core/side_order.hpp"
#include "divbench/core/warp.hpp"
#include "experiments/lock/launcher.hpp"
#include "harness/experiment.hpp"
#include "probes/probe_options.hpp"

namespace divbench {
namespace {

constexpr int kLaunches = 5;
constexpr std::uint32_t kCsIters = 100;
const char* kNoLayout = "not identified: the lock's two sides are inlined code, not call sites the SASS facts name";

// The first round's branch: the lane that acquired first (the group) entered the critical section,
// the others the failed-attempt side. Unmeasurable (first null) unless the first acquirer never
// failed and every other lane failed at least once.
json first_round(const LockRun& run) {
  int winner = -1;
  for (int lane = 0; lane < kWarpLanes; ++lane)
    if (run.lanes[lane].acquired == 1 && run.lanes[lane].order == 0) winner = lane;
  std::vector<std::uint64_t> enter(kWarpLanes);
  bool measurable = winner >= 0 && run.lanes[winner].spins == 0;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    enter[lane] = lane == winner ? run.lanes[lane].cs_enter_clk : run.lanes[lane].first_fail_clk;
    measurable = measurable && (lane == winner || run.lanes[lane].first_fail_clk != 0);
  }
  json j = measurable ? to_json(entry_order(enter, 1u << winner)) : to_json(EntryOrder{});
  j["group_lanes"] = winner >= 0 ? json(mask_lanes(1u << winner)) : json(nullptr);
  return j;
}

// Checks one launch; throws VerificationError on anything mutual exclusion or the work rules out.
json check_launch_result(const LockRun& run, LockForm form) {
  const std::string where = std::string("lock/") + lock_form_name(form) + ": ";
  std::uint32_t served = 0;
  std::set<std::uint32_t> orders;
  std::vector<int> by_order(kWarpLanes, -1);
  std::vector<std::uint32_t> spins;
  bool capped = false;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    const LockLane& l = run.lanes[lane];
    spins.push_back(l.spins);
    if (l.acquired == 1) {
      ++served;
      if (l.order >= kWarpLanes || !orders.insert(l.order).second)
        throw VerificationError(where + "lane " + std::to_string(lane) + " has acquisition order " +
                                std::to_string(l.order) + " (duplicate or out of range: mutual exclusion broken)");
      by_order[l.order] = lane;
      const float want = probe_work_reference(lane, kCsIters);
      if (std::memcmp(&want, &l.value, sizeof want) != 0)
        throw VerificationError(where + "lane " + std::to_string(lane) + " critical section produced " +
                                std::to_string(l.value) + ", expected " + std::to_string(want));
      if (l.capped != 0) throw VerificationError(where + "lane " + std::to_string(lane) + " acquired and capped");
    } else if (l.acquired == 0) {
      if (l.capped != 1) throw VerificationError(where + "lane " + std::to_string(lane) + " neither served nor capped");
      capped = true;
    } else {
      throw VerificationError(where + "lane " + std::to_string(lane) + " wrote no record");
    }
  }
  if (run.counter != served)
    throw VerificationError(where + "counter is " + std::to_string(run.counter) + " after " + std::to_string(served) +
                            " critical sections (mutual exclusion broken)");
  if (run.lock_after != 0) throw VerificationError(where + "lock still held after the kernel");
  by_order.resize(served);
  json j = first_round(run);
  j.update(json{{"lanes_served", served},
                {"cap_reached", capped},
                {"acquisition_order", by_order},
                {"spins", spins},
                {"max_spins", *std::max_element(spins.begin(), spins.end())},
                {"region_cycles", run.region.cycles}});
  return j;
}

// The point's order fields: the group is the first acquirer, named when every launch had the same
// one. `form` stays the lock's code shape (the point's key since before the order fields): the
// reconvergence form of the first round's branch is not identified (its sides are inlined).
json first_round_fields(const json& runs) {
  const json& g0 = runs.at(0).at("group_lanes");
  bool same = !g0.is_null();
  for (const auto& r : runs) same = same && r.at("group_lanes") == g0;
  std::uint32_t mask = same ? 1u << g0.at(0).get<int>() : 1u;
  json j = side_order_fields(mask, std::nullopt, std::nullopt, combine_launches(runs));
  if (!same) {
    j["group_lanes"] = nullptr;
    j["group_position"] = nullptr;
    json by_run = json::array();
    for (const auto& r : runs) by_run.push_back(r.at("group_lanes"));
    j["group_lanes_by_run"] = by_run;
  }
  j["layout"] = json{{"source", kNoLayout}, {"fallthrough_arm", nullptr}, {"bssy_guarded", nullptr}};
  j.erase("form");
  return j;
}

struct LockConfig : ProbeConfig {
  std::uint32_t cs_iters = kCsIters;
};

LockConfig parse(const SettingValues& o) { return parse_probe_config<LockConfig>(o, kLaunches); }

json to_json(const LockConfig& c) {
  json j{{"forms", {"release_in_branch", "release_after_loop"}}};
  j.update(probe_config_json(c));
  j["critical_section_iters"] = c.cs_iters;
  return j;
}

std::vector<PointSpec> plan(const LockConfig& c, const DeviceRecord& dev) {
  require_independent_scheduling(dev, "lock");
  std::vector<PointSpec> pts;
  for (LockForm f : {LockForm::release_in_branch, LockForm::release_after_loop}) {
    pts.push_back({{{"form", lock_form_name(f)}}, "", [f, c] {
                     return probe_point(
                         c.runs.launches, [f, &c] { return check_launch_result(run_lock_probe(f, c.cs_iters, c.caps), f); },
                         [f](const json& runs, PointResult& r) {
                           const std::uint64_t served = min_run(runs, "lanes_served");
                           const bool capped = any_run(runs, "cap_reached");
                           r.raw = json{{"form", lock_form_name(f)},
                                        {"completed", !capped && served == kWarpLanes},
                                        {"lanes_served", served},
                                        {"cap_reached", capped}};
                           r.raw.update(first_round_fields(runs));
                           r.counters["lanes_served"] = static_cast<double>(served);
                         });
                   },
                   nullptr, nullptr});
  }
  return pts;
}

void finalize(const LockConfig&, ResultRecord& r) {
  for (const auto& p : r.points_extra) {
    if (p["form"] == "release_in_branch") {
      r.summary["completed"] = p.value("completed", json(nullptr));
      r.summary["lanes_served"] = p.value("lanes_served", json(nullptr));
      r.summary["cap_reached"] = p.value("cap_reached", json(nullptr));
      json order = side_order_subset(p);
      order.erase("form");  // the lock's code shape, not a reconvergence form
      r.summary.update(order);
    } else {
      // value(): a const json's operator[] on a missing key is undefined (it once wrote `"x": ,`).
      r.summary["classic_form_completed"] = p.value("completed", json(nullptr));
      r.summary["classic_form_lanes_served"] = p.value("lanes_served", json(nullptr));
      r.summary["classic_form_first"] = p.value("first", json(nullptr));
    }
  }
}

ExperimentDef<LockConfig> lock_experiment() {
  ExperimentDef<LockConfig> d{
      "lock", {}, "probe", "32 lanes contend for one spin lock (release in the acquiring branch, and the classic form)",
      parse, to_json, nullptr, plan, finalize, [](const LockConfig& c) { return probe_notes(c.runs); }};
  d.headline = {{"completed", "", "every lane got the lock within the caps"},
                {"lanes_served", "lanes", "lanes that got it"},
                {"cap_reached", "", "a wait ran into its cap (the probe's bound, not a hang)"}};
  d.axes = {{{"form", AxisType::string, "", "", "where the lock is released", AxisLabel::bare},
             [](const LockConfig&) { return json{"release_in_branch", "release_after_loop"}; }}};
  d.settings = probe_settings();
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(lock_experiment);

}  // namespace divbench
