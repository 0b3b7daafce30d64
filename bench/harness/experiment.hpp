// The experiment registry: one file per experiment in bench/experiments/, each registering itself.
//
// An experiment turns RunOptions into points; each point is registered with Google Benchmark
// (so --benchmark_filter / --benchmark_list_tests / --benchmark_out keep working) and, when run,
// yields a TimedPoint (or raw JSON for probes). finalize() turns the points into fit and summary.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "divbench/core/result.hpp"
#include "options.hpp"

namespace divbench {

struct RunContext {
  const RunOptions& opts;
  DeviceRecord device;
};

struct PointResult {
  bool timed = true;    // true: `point` holds a TimedPoint; false: `raw` is the point's JSON
  TimedPoint point;
  json raw = json::object();
  double seconds = 0;   // time reported to Google Benchmark (region time of the median launch)
  std::map<std::string, double> counters;  // extra Google Benchmark counters
};

struct PointSpec {
  std::string label;                   // benchmark name suffix, e.g. "k:7"
  std::function<PointResult()> run;    // timed launches + output verification
  std::function<void()> launch_once;   // one untimed launch of the same kernel (for --metrics)
  std::function<void()> launch_twin;   // the same launch with zero work (region-only counters); optional
};

struct Experiment {
  std::string name;  // "kway", "predication", "lock", ... (the result's "experiment")
  std::vector<std::string> aliases;  // other names --sweep/--probe accept ("k" for "kway")
  std::string kind;  // "sweep" or "probe"
  std::string help;
  // Reject options that make no sense for this experiment (UsageError). Runs before any GPU work.
  std::function<void(const RunOptions&)> validate;
  // File stem of the result ("kway", "kway_sfu").
  std::function<std::string(const RunOptions&)> result_name;
  // Fill config with every knob used.
  std::function<json(const RunOptions&)> config;
  std::function<std::vector<PointSpec>(const RunContext&)> plan;
  // Fit and summary from the collected points.
  std::function<void(const RunContext&, ResultRecord&)> finalize;
};

std::vector<Experiment>& experiment_registry();
const Experiment* find_experiment(const std::string& name, const std::string& kind);

struct ExperimentRegistrar {
  explicit ExperimentRegistrar(Experiment e) { experiment_registry().push_back(std::move(e)); }
};

}  // namespace divbench

#define DIVBENCH_EXP_CONCAT_INNER_(a, b) a##b
#define DIVBENCH_EXP_CONCAT_(a, b) DIVBENCH_EXP_CONCAT_INNER_(a, b)
#define DIVBENCH_REGISTER_EXPERIMENT(factory) \
  static ::divbench::ExperimentRegistrar DIVBENCH_EXP_CONCAT_(divbench_experiment_, __LINE__){factory()}
