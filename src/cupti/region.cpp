#include "divbench/cupti/region.hpp"

#include <stdexcept>

namespace divbench {
namespace {

double need(const MetricValues& m, const char* name, const char* which) {
  const auto it = m.find(name);
  if (it == m.end()) throw std::invalid_argument(std::string("region efficiency: ") + which + " lacks " + name);
  return it->second;
}

// full - twin where both measured `name`.
std::optional<double> difference(const MetricValues& full, const MetricValues& twin, const char* name) {
  const auto f = full.find(name), t = twin.find(name);
  if (f == full.end() || t == twin.end()) return std::nullopt;
  return f->second - t->second;
}

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

RegionEfficiency region_efficiency(const MetricValues& full, const MetricValues& twin) {
  RegionEfficiency r;
  r.inst = need(full, kMetricInst, "full launch") - need(twin, kMetricInst, "twin launch");
  r.thread_inst = need(full, kMetricThreadInst, "full launch") - need(twin, kMetricThreadInst, "twin launch");
  const bool inst_ok = r.inst > 0;
  if (!inst_ok) r.why = "the zero-work twin executed as many warp instructions as the full launch";
  else if (r.thread_inst < 0) r.why = "the zero-work twin executed more thread instructions than the full launch";
  else r.ratio = r.thread_inst / r.inst;

  r.thread_inst_pred_on = difference(full, twin, kMetricThreadInstPredOn);
  if (inst_ok && r.thread_inst_pred_on && *r.thread_inst_pred_on >= 0) r.pred_on_ratio = *r.thread_inst_pred_on / r.inst;

  r.branch_targets = difference(full, twin, kMetricBranchTargets);
  r.branch_targets_uniform = difference(full, twin, kMetricBranchTargetsUniform);
  if (r.branch_targets && r.branch_targets_uniform && *r.branch_targets > 0 && *r.branch_targets_uniform >= 0 &&
      *r.branch_targets_uniform <= *r.branch_targets)
    r.branch_uniform_pct = 100.0 * *r.branch_targets_uniform / *r.branch_targets;
  return r;
}

json to_json(const RegionEfficiency& r) {
  json j{{"inst", r.inst}, {"thread_inst", r.thread_inst}};
  if (r.ratio) {
    j["ratio"] = *r.ratio;
  } else {
    j["ratio"] = nullptr;
    j["why"] = r.why;
  }
  if (r.thread_inst_pred_on) {
    j["thread_inst_pred_on"] = *r.thread_inst_pred_on;
    j["pred_on_ratio"] = or_null(r.pred_on_ratio);
  }
  if (r.branch_targets && r.branch_targets_uniform) {
    j["branch_targets"] = *r.branch_targets;
    j["branch_targets_threads_uniform"] = *r.branch_targets_uniform;
    j["branch_uniform_pct"] = or_null(r.branch_uniform_pct);
  }
  return j;
}

}  // namespace divbench
