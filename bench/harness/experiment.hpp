// The experiment registry. An experiment declares a typed configuration and four functions over it
// (nvbench's model: what an experiment declares is what runs and what gets recorded):
//   parse(RunOptions) -> Config      validation; UsageError (exit 2) before any GPU work
//   to_json(Config)                  exactly what the result's "config" records
//   plan(Config, Device) -> points   the points, built from the same Config
//   finalize(Config, ResultRecord&)  fit and summary from the collected points (host-only: CPU tests
//                                    drive it with synthetic points, no GPU)
// One file per experiment in bench/experiments/, registering itself with DIVBENCH_REGISTER_EXPERIMENT.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "divbench/core/result.hpp"
#include "options.hpp"

namespace divbench {

struct PointResult {
  bool timed = true;    // true: `point` holds a TimedPoint; false: `raw` is the point's JSON
  TimedPoint point;
  json raw = json::object();
  double seconds = 0;   // time reported to Google Benchmark (region time of the median sample)
  std::map<std::string, double> counters;  // extra Google Benchmark counters
};

struct PointSpec {
  std::string label;                   // benchmark name suffix, e.g. "k:7"
  std::function<PointResult()> run;    // timed launches + output verification
  std::function<void()> launch_once;   // one untimed launch of the same kernel (for --metrics); optional
  std::function<void()> launch_twin;   // the same launch with zero work (region-only counters); optional
};

// An experiment with its configuration parsed: everything the runner needs, typed state captured.
struct PreparedExperiment {
  std::string name;         // the result's "experiment"
  std::string result_name;  // file stem of the result ("kway", "kway_sfu")
  json config;              // to_json(Config)
  std::vector<std::string> notes;  // said once on stderr before the run (e.g. a capped --reps)
  std::function<std::vector<PointSpec>(const DeviceRecord&)> plan;
  std::function<void(ResultRecord&)> finalize;
};

struct Experiment {
  std::string name;                  // "kway", "predication", "lock", ...
  std::vector<std::string> aliases;  // other names --sweep/--probe accept ("k" for "kway")
  std::string kind;                  // "sweep" or "probe"
  std::string help;
  std::function<PreparedExperiment(const RunOptions&)> prepare;  // parse; throws UsageError
  bool in_all = true;  // run by --all (the reproduction); the validation sweeps (cost, sampling) run alone
};

// What an experiment file declares.
template <class Config>
struct ExperimentDef {
  std::string name;
  std::vector<std::string> aliases;
  std::string kind;
  std::string help;
  std::function<Config(const RunOptions&)> parse;
  std::function<json(const Config&)> to_json;
  std::function<std::string(const Config&)> result_name;
  std::function<std::vector<PointSpec>(const Config&, const DeviceRecord&)> plan;
  std::function<void(const Config&, ResultRecord&)> finalize;
  std::function<std::vector<std::string>(const Config&)> notes;  // optional
};

template <class Config>
Experiment make_experiment(ExperimentDef<Config> d) {
  Experiment e{d.name, d.aliases, d.kind, d.help, nullptr, true};
  e.prepare = [d](const RunOptions& o) {
    auto c = std::make_shared<const Config>(d.parse(o));
    PreparedExperiment p;
    p.name = d.name;
    p.result_name = d.result_name ? d.result_name(*c) : d.name;
    p.config = d.to_json(*c);
    if (d.notes) p.notes = d.notes(*c);
    p.plan = [d, c](const DeviceRecord& dev) { return d.plan(*c, dev); };
    p.finalize = [d, c](ResultRecord& r) {
      if (d.finalize) d.finalize(*c, r);
    };
    return p;
  };
  return e;
}

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
