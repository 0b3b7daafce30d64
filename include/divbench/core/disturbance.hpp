// Was a point disturbed, and is a result trustworthy? The rules the harness applies while it measures
// (and re-measures a disturbed point), and that the Python tools apply again to any result file
// (scripts/divbench/quality.py). Both read one criterion, data/noise_criterion.json (built into the
// executable; made from quiet-H200 results by `python3 -m divbench.noise_levels`), and both pass the
// shared cases of tests/data/quality_cases.json.
//
// A point's reasons, each "code: detail" (docs/timing.md "Disturbed measurements"):
//   throttled  the point's own flag (SM clock moved; NVML named a throttling reason)
//   co_tenant  another compute process or MPS client held a context on the GPU before or after it
//   noise      max - min of its samples > factor * max(abs_cycles, rel * median, floor_cycles) of its
//              class (sampling mode x body kind); warp-per-SM samples name the SMs that disagree
//   shared_sm  a warp-per-SM launch whose warps shared an SM
//   ill_typed  a flag the verdict reads is there but not of its type (throttled: 1, PIDs as strings,
//              launches_with_shared_sm: 5.0): the point cannot be called quiet
//   no_spread  neither samples nor median/min/max: its noise cannot be judged
//   unknown_class  a sampling mode the criterion has no level for (not a string, or not a mode it knows)
// A result: every disturbed point, no points at all (no_points), and a k-way fit with c < c_min or R^2
// below the floor of its body kind, or without a finite c and r2 (fit_missing).
// Host-only; works on the JSON form of points, which is what the Python side reads.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/core/run_conditions.hpp"

namespace divbench {

struct NoiseLevel {
  double abs_cycles = 0;  // quiet max - min of regions shorter than large_median_cycles
  double rel = 0;         // quiet (max - min) / median of longer regions
};

struct NoiseCriterion {
  double factor = 4;
  double floor_cycles = 64;
  std::map<std::string, NoiseLevel> classes;  // "warp-per-sm/compute", "single/memory", "grid/compute", ...
  std::vector<std::string> memory_bodies;
  double c_min = 0;
  std::map<std::string, double> r2_min;       // "compute", "memory"
};

// The criterion built into this executable (data/noise_criterion.json at build time).
const NoiseCriterion& noise_criterion();
// Parses a divbench.noise_criterion/1 document; std::runtime_error naming what is wrong.
NoiseCriterion parse_noise_criterion(const json& doc);

// The sampling modes the criterion has a quiet level for (the part of its classes before '/').
std::set<std::string> sampling_modes(const NoiseCriterion& c);
// "<sampling>/<compute|memory>" of a point (its own "sampling", else config's; its "body", else config's).
std::string noise_class(const json& point, const json& config, const NoiseCriterion& c);
// Largest quiet max - min for a region of `median` cycles; < 0 when the class has no quiet level.
double allowed_spread(const NoiseCriterion& c, const std::string& cls, double median, double factor);

struct PointVerdict {
  std::vector<std::string> reasons;       // empty: not disturbed
  std::vector<unsigned> disagreeing_sms;  // warp-per-SM: SMs whose median differs by more than allowed
  bool disturbed() const { return !reasons.empty(); }
};

// A timed point (the JSON to_json(TimedPoint) writes, with "conditions" where NVML was read). `factor`
// scales the criterion's levels (the criterion's own factor unless --noise-factor says otherwise).
PointVerdict judge_timed_point(const json& point, const json& config, const NoiseCriterion& c, double factor);
// A probe's raw point: conditions and its throttled flag only.
PointVerdict judge_raw_point(const json& point);

// Other processes seen on the GPU in a point's conditions ("?" for those whose PID could not be told
// from divbench's own), before or after.
// The other processes the point's NVML reading listed (PIDs; "?" where only a count is known)...
std::vector<std::string> listed_co_tenants(const json& point);
// ... those of them that were active or whose activity is unknown: a co_tenant disturbance ...
std::vector<std::string> co_tenants(const json& point);
// ... and those NVML's per-process utilization samples show idle (a context, no work): SM utilization
// never above kIdleSmUtilPercent and memory utilization 0 in every sample since divbench's first reading.
// Where the reading says when that was (activity.since_us), no sample at all is idle too: the driver
// names in each ~200 ms sample the process(es) it saw run, and a co-tenant's start-up before divbench's
// first reading is not counted (on the H200 an idle context's only sample was its own start-up at 7%).
// Without since_us (files written before it) a co-tenant needs at least one sample to be idle.
// The threshold is 1%, not 0: on the H200 a process that held a context and 1 GiB and launched nothing
// had one sample at 1% among 17 (results/h200/probes/nvml-activity). NVML shows presence of work, not
// its absence: a faint co-tenant (20 us of every 10 ms) reads 0-1% or has no sample while divbench
// runs; it is not a co_tenant disturbance then, and the timing checks are what catch it (stage 25
// measures both with NVML's process list on and off).
std::vector<std::string> idle_co_tenants(const json& point);
inline constexpr unsigned kIdleSmUtilPercent = 1;
std::optional<ProcessActivity> idle_activity(const json& point, const std::string& pid);

// The reasons a result's fit is not trustworthy: c below c_min, R^2 below its floor, and a fit that
// cannot be judged (fit_missing: a k-way result without one, a fit or placement without finite c/r2).
std::vector<std::string> fit_reasons(const json& doc, const NoiseCriterion& c);

// The result's verdict from its finished document (points already judged, fit present):
// {"trustworthy", "reasons": [...], "disturbed_points": N, "disturbed": [{"index", "label", "reasons"}],
//  "criterion": {...}, "notes": [...]}.
json judge_result(const json& doc, const NoiseCriterion& c);

}  // namespace divbench
