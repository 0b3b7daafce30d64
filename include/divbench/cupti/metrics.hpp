// In-process efficiency counters (CUPTI range profiler, libcupti loaded at run time). Collected from
// extra, untimed launches after a point's timed launches, never inside them.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench {

// The metrics divbench reads by default: the efficiency ratio and the two sums it is made of.
const std::vector<std::string>& default_metrics();

// Profile exactly one call of `launch_once` (which must enqueue one kernel launch on the current
// device and may synchronize) and return {"available": true, "values": {metric: value}, "chip",
// "passes", "profile_ms", "library"}. When profiling is not possible (library missing, no permission,
// unsupported device, DIVBENCH_CUPTI=off) return {"available": false, "reason": "..."} and print one
// line on stderr, once per process; launch_once still runs (unprofiled), so the sequence of launches
// is the same whether or not counters can be read (what `ncu --launch-skip` counts on). Never throws
// for those cases; CUDA errors of launch_once propagate.
json collect_metrics(const std::function<void()>& launch_once,
                     const std::vector<std::string>& metrics = default_metrics());

// The full launch, then (when `launch_twin` is set) its zero-work twin: the full launch's
// collect_metrics() object plus "twin" {metric: value} and "region" (see cupti/region.hpp).
json collect_point_metrics(const std::function<void()>& launch_once, const std::function<void()>& launch_twin);

}  // namespace divbench
