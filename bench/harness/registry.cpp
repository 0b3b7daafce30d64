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

}  // namespace divbench
