// Synthetic points and an experiment's finalize() over them, for the CPU tests of the experiment
// folders (experiments/<name>/tests/): no GPU, made-up cycles. Included by its path from the repository
// root ("tests/cpu/experiments/synthetic_points.hpp").
#pragma once
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/experiment.hpp"
#include "harness/runner.hpp"

namespace divbench::synthetic {

// A point at (k, placement) and the other axes given; the harness stamps these as point.axes.
inline TimedPoint point(double k, double cycles, int placement = 0, json axes = json::object()) {
  TimedPoint p;
  p.k = k;
  p.cycles.median = p.cycles.min = p.cycles.max = p.cycles.mean = cycles;
  p.cycles.n = 1;
  p.axes = std::move(axes);
  p.axes["placement"] = placement;
  p.axes["k"] = static_cast<int>(k);
  p.extra["placement"] = placement;
  return p;
}

// A command line as the CLI gives it: each (option, text) given (a flag's text: "true").
inline CommandLine args(std::initializer_list<std::pair<std::string, std::string>> given = {}) {
  CommandLine cl;
  for (const auto& [option, text] : given) cl.set(option, text);
  return cl;
}

// The values that reach experiment `name` selected alone by `cl` (--sweep/--probe NAME added), through
// the harness's own resolution (its accepted-options check and --axis included).
inline SettingValues values_for(const std::string& kind, const std::string& name, CommandLine cl) {
  const Experiment* e = find_experiment(name, kind);
  if (!e) throw std::runtime_error("no experiment " + name);
  cl.set(kind == "sweep" ? "--sweep" : "--probe", name);
  std::vector<std::string> notes;
  return resolve_settings(Selection{{e}, "--" + kind + " " + name}, cl, notes).front();
}

// The experiment as prepared from `cl` with --sweep/--probe NAME added: what the harness prepares.
inline PreparedExperiment prepare(const std::string& kind, const std::string& name, CommandLine cl = {}) {
  cl.set("--" + kind, name);
  return prepare_experiments(cl).front();
}

// The experiment's finalize() (its real prepare()) over `pts`.
inline ResultRecord finalize(const std::string& kind, const std::string& name, CommandLine cl, std::vector<TimedPoint> pts) {
  ResultRecord r;
  r.points = std::move(pts);
  prepare(kind, name, std::move(cl)).finalize(r);
  return r;
}

}  // namespace divbench::synthetic
