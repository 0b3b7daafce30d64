// What the GPU tests share (tests/gpu/ and each experiment folder's tests/gpu/, included by its path
// from the repository root): the device they run on (queried once), one experiment through the
// harness's steps without Google Benchmark — prepare, plan, run every point, finalize — filing timed
// points into `points` and untimed probe records into `points_extra`, as bench/harness/runner.cpp does;
// small runs of the timed-point runner; the order fields every probe point carries.
#pragma once
#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <string>

#include "divbench/core/result.hpp"
#include "divbench/core/side_order.hpp"
#include "divbench/cuda/device_info.hpp"
#include "experiments/kway/launcher.hpp"
#include "harness/experiment.hpp"
#include "harness/runner.hpp"
#include "harness/timed_point.hpp"

namespace divbench::test {

inline const DeviceRecord& device() {
  static const DeviceRecord d = query_device(0);
  return d;
}

inline int cc_major() { return device().cc_major; }

// kind: "sweep" or "probe".
// The experiment prepared from `o` as on the command line (resolve_settings: the accepted-options check
// included).
inline PreparedExperiment prepared(const std::string& kind, const std::string& name, CommandLine o) {
  o.set("--" + kind, name);
  return prepare_experiments(o).front();
}

inline ResultRecord run_experiment(const std::string& kind, const std::string& name, CommandLine o) {
  const PreparedExperiment p = prepared(kind, name, std::move(o));
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

inline ResultRecord run_sweep(const std::string& name, CommandLine o) { return run_experiment("sweep", name, std::move(o)); }
inline ResultRecord run_probe(const std::string& name, CommandLine o) { return run_experiment("probe", name, std::move(o)); }

// Options of a small sweep: 3 launches after 1 warm-up.
inline CommandLine small_options() {
  CommandLine o;
  o.set("--reps", "3");
  o.set("--warmup", "1");
  return o;
}

// A small k-way kernel at placement 0: 50 iterations per path (mem_divergent 20), lanes by `map`.
inline TimedKernel small_kway_kernel(Body body, int k, LaneMap map) {
  const LaneAssignment lanes = assign_lanes(map, k, body == Body::mem_divergent ? 20u : 50u, 7);
  return kway_timed_kernel(body, make_kway_params(body, k, lanes), 0);
}

// The timed-point runner on `kernel`, small: 3 launches after 1 warm-up, one warp per launch unless
// `shape` fixes the grid; `events`: also each whole launch's CUDA-event time.
inline PointResult run_small(const TimedKernel& kernel, std::optional<LaunchShape> shape, bool events = false) {
  TimedRun run;
  run.timing.reps = 3;
  run.timing.warmup = 1;
  run.timing.sampling = Sampling::single;
  run.shape = shape;
  run.kernel_events = events;
  return run_timed_point(kernel, run, device(), 1);
}

// Every order field (side_order_keys) is in a probe point.
inline void expect_side_fields(const json& p) {
  for (const auto& k : side_order_keys()) EXPECT_TRUE(p.contains(k)) << k << " in " << p.dump().substr(0, 200);
}

}  // namespace divbench::test
