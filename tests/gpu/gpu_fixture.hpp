// What the GPU tests share: the device they run on (queried once), and one experiment through the
// harness's steps without Google Benchmark — prepare, plan, run every point, finalize — filing timed
// points into `points` and untimed probe records into `points_extra`, as bench/harness/runner.cpp does.
#pragma once
#include <string>

#include "divbench/core/result.hpp"
#include "divbench/cuda/device_info.hpp"
#include "harness/experiment.hpp"

namespace divbench::test {

inline const DeviceRecord& device() {
  static const DeviceRecord d = query_device(0);
  return d;
}

inline int cc_major() { return device().cc_major; }

// kind: "sweep" or "probe".
inline ResultRecord run_experiment(const std::string& kind, const std::string& name, RunOptions o) {
  (kind == "sweep" ? o.sweep : o.probe) = name;
  const PreparedExperiment p = find_experiment(name, kind)->prepare(o);
  ResultRecord r;
  r.experiment = name;
  r.device = device();
  r.config = p.config;
  for (const PointSpec& spec : p.plan(device())) {
    PointResult pr = spec.run();
    if (pr.timed)
      r.points.push_back(std::move(pr.point));
    else
      r.points_extra.push_back(std::move(pr.raw));
  }
  p.finalize(r);
  return r;
}

}  // namespace divbench::test
