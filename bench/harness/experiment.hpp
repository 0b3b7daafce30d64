// The experiment registry. An experiment declares a typed configuration and four functions over it
// (nvbench's model: what an experiment declares is what runs and what gets recorded):
//   parse(SettingValues) -> Config   typed values of its declared settings; UsageError (exit 2) before any GPU work
//   to_json(Config)                  exactly what the result's "config" records
//   plan(Config, Device) -> points   the points, built from the same Config
//   finalize(Config, ResultRecord&)  fit and summary from the collected points (host-only: CPU tests
//                                    drive it with synthetic points, no GPU)
// and declares its axes (axes.hpp) and its settings (settings.hpp) once: what its points vary over, with
// the option that sets each, and every option it reads with type, default, unit, help and valid values.
// Labels, point.axes, config.axes, the command line (main.cpp registers the declared settings in one
// loop), the accepted options and --axis NAME=VALUES all come from that declaration; plan() gives each
// point its coordinates, never a hand-built label.
// One folder per experiment, experiments/<name>/ (docs/dynamic.md "Adding an experiment"): its
// experiment.cpp returns its ExperimentDef from a factory and registers it in one line,
// DIVBENCH_REGISTER_EXPERIMENT(factory) (CUB's bench/<family>/<variant>.cu: a variant over a shared base).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "axes.hpp"
#include "divbench/core/result.hpp"
#include "settings.hpp"

namespace divbench {

// A summary value an experiment names as its headline, declared once: the key in the result's summary,
// its unit and one line of what it is. The console prints these ("s_cycles_per_path = 27.9 cycles/path"),
// `--list --format json` lists them, and the SchemaDocuments tests check that finalize writes them.
struct SummaryField {
  std::string key;
  std::string unit;  // "" for a flag or a name
  std::string help;
};

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
  std::vector<std::string> inputs; // files the run reads (--loop-cost): no output may land on them
  std::vector<SummaryField> headline;  // the experiment's declared headline summary values
  std::function<std::vector<PointSpec>(const DeviceRecord&)> plan;
  std::function<void(ResultRecord&)> finalize;
};

struct Experiment {
  std::string name;                  // "kway", "predication", "lock", ...
  std::vector<std::string> aliases;  // other names --sweep/--probe accept ("k" for "kway")
  std::string kind;                  // "sweep" or "probe"
  std::string help;
  std::function<PreparedExperiment(const SettingValues&)> prepare;  // parse; throws UsageError
  bool in_all = true;  // run by --all (the reproduction); the validation sweeps (cost, sampling) run alone
  std::vector<SettingSpec> settings;  // every option it reads, its axes' included
  std::vector<AxisSpec> axes;         // what its points vary over (--axis NAME=VALUES sets those with an option)
  std::vector<SummaryField> headline; // its headline summary values
  // A sweep whose kernels the static half finds in the kernel facts (the loops validation: `kernels fit
  // --validation`): a substring of the mangled name of the kernel that runs `body` at `placement`.
  std::function<std::string(const std::string& body, int placement)> kernel_needle;
};

// A declaration's own consistency (std::logic_error, at registration): every axis's option declared as a
// setting, no option declared twice, an own setting under a shared option's name of the shared type.
void check_declaration(const Experiment& e);

// What an experiment file declares.
template <class Config>
struct ExperimentDef {
  ExperimentDef(std::string name_, std::vector<std::string> aliases_, std::string kind_, std::string help_,
                std::function<Config(const SettingValues&)> parse_, std::function<json(const Config&)> to_json_,
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
  std::function<Config(const SettingValues&)> parse;
  std::function<json(const Config&)> to_json;
  std::function<std::string(const Config&)> result_name;
  std::function<std::vector<PointSpec>(const Config&, const DeviceRecord&)> plan;
  std::function<void(const Config&, ResultRecord&)> finalize;
  std::function<std::vector<std::string>(const Config&)> notes;  // optional
  std::function<std::vector<std::string>(const Config&)> inputs;  // optional: files it reads (PreparedExperiment::inputs)
  // What its points vary over: each axis with the values this Config gives it.
  struct Axis {
    AxisSpec spec;
    std::function<json(const Config&)> values;
  };
  std::vector<Axis> axes;
  // Every option parse() reads, with its type, default and help: the shared ones (common_settings.hpp,
  // with this experiment's default where it differs) and its own. An axis's option is one of them.
  std::vector<SettingSpec> settings;
  std::vector<SummaryField> headline;  // what its summary leads with: key, unit, help
  bool in_all = true;  // run by --all; false for the validation sweeps that run alone
  std::function<std::string(const std::string& body, int placement)> kernel_needle;  // Experiment::kernel_needle
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
  Experiment e{d.name, d.aliases, d.kind, d.help, nullptr, d.in_all, d.settings, {}, d.headline, d.kernel_needle};
  for (const auto& a : d.axes) e.axes.push_back(a.spec);
  check_declaration(e);
  e.prepare = [d](const SettingValues& o) {
    auto c = std::make_shared<const Config>(d.parse(o));
    PreparedExperiment p;
    p.name = d.name;
    p.result_name = d.result_name ? d.result_name(*c) : d.name;
    p.config = d.to_json(*c);
    const std::vector<AxisDecl> axes = declared_axes(d, *c);
    p.config["axes"] = axes_config_json(axes);
    p.axes = axes;
    if (d.notes) p.notes = d.notes(*c);
    if (d.inputs) p.inputs = d.inputs(*c);
    p.headline = d.headline;
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

// Every option the command line takes (main.cpp registers these in one loop): the harness's settings,
// then each option the experiments declare, once, with the shared help and each own meaning named.
std::vector<SettingSpec> declared_options();

// The experiments a command line selects (--sweep, --probe or --all) and how to name them in a message.
struct Selection {
  std::vector<const Experiment*> experiments;
  std::string who;  // "--sweep k", "--probe order", "--all"
};
Selection select_experiments(const SettingValues& harness);

// The values that reach each selected experiment (in selection order), after the one accepted-options
// check: an option no selected experiment (nor the harness) declares is refused naming it; --axis
// NAME=VALUES gives the option of each selected experiment's axis NAME (refused when none has one, or
// when that option is given too). Of several experiments, one whose own setting shares a shared option's
// name does not get it (its meaning there is not the option's): `notes` says so. Every value that reaches
// an experiment is checked against its declaration here (UsageError naming the option).
std::vector<SettingValues> resolve_settings(const Selection& sel, const CommandLine& cl, std::vector<std::string>& notes);

// An experiment file's one registration line, DIVBENCH_REGISTER_EXPERIMENT(factory): the factory returns
// its ExperimentDef (made into an Experiment here, by make_experiment) or a finished Experiment.
struct ExperimentRegistrar {
  explicit ExperimentRegistrar(Experiment e) { experiment_registry().push_back(std::move(e)); }
  template <class Config>
  explicit ExperimentRegistrar(ExperimentDef<Config> d) : ExperimentRegistrar(make_experiment<Config>(std::move(d))) {}
};

}  // namespace divbench

#define DIVBENCH_EXP_CONCAT_INNER_(a, b) a##b
#define DIVBENCH_EXP_CONCAT_(a, b) DIVBENCH_EXP_CONCAT_INNER_(a, b)
#define DIVBENCH_REGISTER_EXPERIMENT(factory) \
  static ::divbench::ExperimentRegistrar DIVBENCH_EXP_CONCAT_(divbench_experiment_, __LINE__){factory()}
