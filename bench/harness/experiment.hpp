// The experiment registry. An experiment declares a typed configuration and four functions over it
// (nvbench's model: what an experiment declares is what runs and what gets recorded):
//   parse(RunOptions) -> Config      validation; UsageError (exit 2) before any GPU work
//   to_json(Config)                  exactly what the result's "config" records
//   plan(Config, Device) -> points   the points, built from the same Config
//   finalize(Config, ResultRecord&)  fit and summary from the collected points (host-only: CPU tests
//                                    drive it with synthetic points, no GPU)
// and declares its axes and settings once (axes.hpp): what its points vary over, with the option that
// sets each, and the other options it reads. Labels, point.axes, config.axes and the accepted options
// all come from that declaration; plan() gives each point its coordinates, never a hand-built label.
// One folder per experiment, experiments/<name>/ (docs/dynamic.md "Adding an experiment"): its
// experiment.cpp registers itself with DIVBENCH_REGISTER_EXPERIMENT.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "axes.hpp"
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
  json axes = json::object();          // the point's coordinates on the declared axes: {"k": 7}
  std::string label;                   // benchmark name suffix, e.g. "k:7": made from `axes`
  std::function<PointResult()> run;    // timed launches + output verification
  std::function<void()> launch_once;   // one untimed launch of the same kernel (for --metrics); optional
  std::function<void()> launch_twin;   // the same launch with zero work (region-only counters); optional
  // Points of one run whose metric launches are the same launches (same kernel, arguments and shape,
  // by construction of the experiment) say so with one non-empty key: they are profiled once, and each
  // point's counters say which key and how many points share them.
  std::string launch_key = {};
};

// An experiment with its configuration parsed: everything the runner needs, typed state captured.
struct PreparedExperiment {
  std::string name;         // the result's "experiment"
  std::string result_name;  // file stem of the result ("kway", "kway_sfu")
  json config;              // to_json(Config), with "axes": the declared axes and their values
  std::vector<AxisDecl> axes;  // the declared axes with this Config's values
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
  std::vector<std::string> options;            // what it declares: its axes' options and its settings
  std::vector<std::string> ignored_under_all;  // of those, the ones it leaves at its defaults under --all
};

// What an experiment file declares.
template <class Config>
struct ExperimentDef {
  ExperimentDef(std::string name_, std::vector<std::string> aliases_, std::string kind_, std::string help_,
                std::function<Config(const RunOptions&)> parse_, std::function<json(const Config&)> to_json_,
                std::function<std::string(const Config&)> result_name_,
                std::function<std::vector<PointSpec>(const Config&, const DeviceRecord&)> plan_,
                std::function<void(const Config&, ResultRecord&)> finalize_,
                std::function<std::vector<std::string>(const Config&)> notes_)
      : name(std::move(name_)), aliases(std::move(aliases_)), kind(std::move(kind_)), help(std::move(help_)),
        parse(std::move(parse_)), to_json(std::move(to_json_)), result_name(std::move(result_name_)),
        plan(std::move(plan_)), finalize(std::move(finalize_)), notes(std::move(notes_)) {}
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
  // What its points vary over: each axis with the values this Config gives it.
  struct Axis {
    AxisSpec spec;
    std::function<json(const Config&)> values;
  };
  std::vector<Axis> axes;
  std::vector<std::string> settings;           // the other options parse() reads ("--reps", "--body")
  std::vector<std::string> ignored_under_all;  // options it declares but leaves at its defaults under --all
  bool in_all = true;  // run by --all; false for the validation sweeps that run alone
};

// The declared axes with the values of one configuration.
template <class Config>
std::vector<AxisDecl> declared_axes(const ExperimentDef<Config>& d, const Config& c) {
  std::vector<AxisDecl> v;
  for (const auto& a : d.axes) v.push_back(AxisDecl{a.spec, a.values(c)});
  return v;
}

// Labels the points and stamps their axes on what they record (point.axes of a TimedPoint, "axes" of
// a raw point), after checking each point's coordinates against the declaration.
std::vector<PointSpec> with_declared_axes(const std::string& experiment, const std::vector<AxisDecl>& axes,
                                          std::vector<PointSpec> points);

template <class Config>
Experiment make_experiment(ExperimentDef<Config> d) {
  Experiment e{d.name, d.aliases, d.kind, d.help, nullptr, d.in_all, d.settings, d.ignored_under_all};
  for (const auto& a : d.axes)
    if (!a.spec.option.empty()) e.options.push_back(a.spec.option);
  e.prepare = [d](const RunOptions& o) {
    auto c = std::make_shared<const Config>(d.parse(o));
    PreparedExperiment p;
    p.name = d.name;
    p.result_name = d.result_name ? d.result_name(*c) : d.name;
    p.config = d.to_json(*c);
    const std::vector<AxisDecl> axes = declared_axes(d, *c);
    p.config["axes"] = axes_config_json(axes);
    p.axes = axes;
    if (d.notes) p.notes = d.notes(*c);
    p.plan = [d, c, axes](const DeviceRecord& dev) { return with_declared_axes(d.name, axes, d.plan(*c, dev)); };
    p.finalize = [d, c](ResultRecord& r) {
      if (d.finalize) d.finalize(*c, r);
    };
    return p;
  };
  return e;
}

std::vector<Experiment>& experiment_registry();
const Experiment* find_experiment(const std::string& name, const std::string& kind);

// The accepted-options check for a selection (check_options over what the selected experiments declare;
// under --all, less what each leaves at its defaults there). UsageError naming the option.
void check_selected_options(const RunOptions& o, const std::string& who, const std::vector<const Experiment*>& sel);

struct ExperimentRegistrar {
  explicit ExperimentRegistrar(Experiment e) { experiment_registry().push_back(std::move(e)); }
};

}  // namespace divbench

#define DIVBENCH_EXP_CONCAT_INNER_(a, b) a##b
#define DIVBENCH_EXP_CONCAT_(a, b) DIVBENCH_EXP_CONCAT_INNER_(a, b)
#define DIVBENCH_REGISTER_EXPERIMENT(factory) \
  static ::divbench::ExperimentRegistrar DIVBENCH_EXP_CONCAT_(divbench_experiment_, __LINE__){factory()}
