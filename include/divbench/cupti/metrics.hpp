// In-process efficiency counters (CUPTI range profiler). Collected from one extra, untimed launch.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench {

// The metrics divbench reads by default.
const std::vector<std::string>& default_metrics();

// Profile exactly one call of `launch_once` (which must enqueue one kernel launch on the current
// device) and return {"available": true, "values": {metric: value}, ...}; when profiling is not
// possible (no permission, no counters, unsupported device) return {"available": false,
// "reason": "..."} and print one line on stderr, once per process. Never throws for those cases.
json collect_metrics(const std::function<void()>& launch_once,
                     const std::vector<std::string>& metrics = default_metrics());

}  // namespace divbench
