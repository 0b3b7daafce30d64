// One point measured as the runner does it: a calibration launch and NVML's run conditions (clocks,
// reasons, the processes on the GPU) right before and after the point's launches, then the verdict
// (core/disturbance.hpp). A disturbed point is measured again, nvbench's way, until it is clean or
// `max_attempts` measurements are spent; the last measurement is kept with its verdict and the earlier
// ones are recorded beside it ("disturbed", "disturbed_reasons", "attempts", "earlier_attempts").
#pragma once
#include <functional>
#include <string>

#include "divbench/core/disturbance.hpp"
#include "divbench/core/result.hpp"
#include "experiment.hpp"

namespace divbench {

struct RetryPolicy {
  int max_attempts = 3;
  double noise_factor = 4;  // multiple of the quiet level (the criterion's factor unless --noise-factor)
  const NoiseCriterion* criterion = nullptr;
};

// `warn` receives one line per re-measurement. `stop` is asked between attempts (an interrupt).
PointResult measure_point(const PointSpec& spec, const ResultRecord& rec, const RetryPolicy& policy,
                          const std::string& name, const std::function<void(const std::string&)>& warn,
                          const std::function<bool()>& stop);

// The result's verdict (quality): judge_result over the finished document, with the policy it was
// judged by and notes on what could not be checked. Sets rec.quality and returns it.
json add_verdict(ResultRecord& rec, const json& doc, const RetryPolicy& policy);

}  // namespace divbench
