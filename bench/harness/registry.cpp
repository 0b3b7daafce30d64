#include "experiment.hpp"

#include <algorithm>

namespace divbench {

std::vector<Experiment>& experiment_registry() {
  static std::vector<Experiment> experiments;
  return experiments;
}

const Experiment* find_experiment(const std::string& name, const std::string& kind) {
  for (const auto& e : experiment_registry())
    if (e.kind == kind && (e.name == name || std::find(e.aliases.begin(), e.aliases.end(), name) != e.aliases.end()))
      return &e;
  return nullptr;
}

std::vector<PointSpec> with_declared_axes(const std::string& experiment, const std::vector<AxisDecl>& axes,
                                          std::vector<PointSpec> points) {
  for (auto& pt : points) {
    check_point_axes(experiment, axes, pt.axes);
    pt.label = axes_label(axes, pt.axes);
    pt.run = [run = std::move(pt.run), coords = pt.axes] {
      PointResult r = run();
      (r.timed ? r.point.axes : r.raw["axes"]) = coords;
      return r;
    };
  }
  return points;
}

void check_selected_options(const RunOptions& o, const std::string& who, const std::vector<const Experiment*>& sel) {
  std::vector<std::string> accepted;
  for (const Experiment* e : sel)
    for (const auto& opt : e->options)
      if (!o.all ||
          std::find(e->ignored_under_all.begin(), e->ignored_under_all.end(), opt) == e->ignored_under_all.end())
        accepted.push_back(opt);
  check_options(std::vector<std::string>(o.given.begin(), o.given.end()), who, accepted);
}

}  // namespace divbench
