// Synthetic points and an experiment's finalize() over them, for the CPU tests of the experiment
// folders (experiments/<name>/tests/): no GPU, made-up cycles. Included by its path from the repository
// root ("tests/cpu/experiments/synthetic_points.hpp").
#pragma once
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "harness/experiment.hpp"

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

// The experiment's finalize() (its real prepare(o)) over `pts`.
inline ResultRecord finalize(const std::string& kind, const std::string& name, RunOptions o, std::vector<TimedPoint> pts) {
  ResultRecord r;
  r.points = std::move(pts);
  find_experiment(name, kind)->prepare(o).finalize(r);
  return r;
}

// Options as the CLI gives them: the named options marked as given on the command line.
inline RunOptions with(std::initializer_list<std::string> given) {
  RunOptions o;
  for (const auto& g : given) o.given.insert(g);
  return o;
}

}  // namespace divbench::synthetic
