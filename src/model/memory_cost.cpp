// A load pass's cycles against its sectors (model/memory_cost.hpp).
#include "divbench/model/memory_cost.hpp"

#include <algorithm>
#include <cmath>

#include "divbench/core/errors.hpp"

namespace divbench::model {

namespace {

double in_range(const json& v, const std::string& what, const std::string& key, double lo, double hi) {
  if (!v.is_number()) throw UsageError(what + ": (" + key + ") is " + v.dump() + ", not a number");
  const double x = v.get<double>();
  if (!(x >= lo && x <= hi))
    throw UsageError(what + ": (" + key + ") is " + v.dump() + ", outside " + json(lo).dump() + ".." + json(hi).dump());
  return x;
}

void check_level(const MemoryLevelCost& m, const std::string& what, const std::string& key) {
  if (m.lanes.size() < 2) throw UsageError(what + ": (" + key + ") level " + m.level + " has fewer than two measured lanes");
  for (std::size_t i = 1; i < m.lanes.size(); ++i)
    if (!(m.lanes[i] > m.lanes[i - 1])) throw UsageError(what + ": (" + key + ") level " + m.level + ": lanes not ascending");
}

}  // namespace

double MemoryLevelCost::at(double sectors) const {
  if (lanes.empty()) return 0;
  if (sectors <= lanes.front()) return cycles.front();
  if (sectors >= lanes.back()) return cycles.back();
  const std::size_t i = std::upper_bound(lanes.begin(), lanes.end(), sectors) - lanes.begin();
  const double t = (sectors - lanes[i - 1]) / (lanes[i] - lanes[i - 1]);
  return cycles[i - 1] + t * (cycles[i] - cycles[i - 1]);
}

std::vector<MemoryLevelCost> memory_levels_from_json(const json& levels, const std::string& what) {
  if (!levels.is_array() || levels.empty()) throw UsageError(what + ": (/memory_levels) is not a non-empty list");
  std::vector<MemoryLevelCost> v;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const std::string key = "/memory_levels/" + std::to_string(i);
    const json& l = levels[i];
    if (!l.is_object() || !l.contains("level") || !l["level"].is_string() || !l.contains("lanes") || !l["lanes"].is_array() ||
        !l.contains("cycles_per_load") || !l["cycles_per_load"].is_array() || l["lanes"].size() != l["cycles_per_load"].size())
      throw UsageError(what + ": (" + key + ") is not {\"level\", \"lanes\": [...], \"cycles_per_load\": [...]} of one length");
    MemoryLevelCost m;
    m.level = l["level"].get<std::string>();
    for (std::size_t j = 0; j < l["lanes"].size(); ++j) {
      m.lanes.push_back(in_range(l["lanes"][j], what, key + "/lanes/" + std::to_string(j), 1, 32));
      m.cycles.push_back(in_range(l["cycles_per_load"][j], what, key + "/cycles_per_load/" + std::to_string(j), 1e-3, 1e6));
    }
    check_level(m, what, key);
    v.push_back(std::move(m));
  }
  return v;
}

std::vector<MemoryLevelCost> memory_levels_from_result(const json& result, const std::string& what) {
  if (!result.is_object() || result.value("experiment", "") != "memory" || !result.contains("summary") ||
      !result["summary"].is_object() || !result["summary"].contains("levels"))
    throw UsageError(what + ": not a --sweep memory result (experiment \"memory\" with summary.levels)");
  const json& levels = result["summary"]["levels"];
  if (!levels.is_array() || levels.empty()) throw UsageError(what + ": (/summary/levels) is not a non-empty list");
  std::vector<MemoryLevelCost> v;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const std::string key = "/summary/levels/" + std::to_string(i);
    const json& l = levels[i];
    if (!l.is_object() || !l.contains("level") || !l["level"].is_string() || !l.contains("per_lanes") || !l["per_lanes"].is_array())
      throw UsageError(what + ": (" + key + ") is not {\"level\", \"per_lanes\"}");
    MemoryLevelCost m;
    m.level = l["level"].get<std::string>();
    for (std::size_t j = 0; j < l["per_lanes"].size(); ++j) {
      const json& p = l["per_lanes"][j];
      const std::string pk = key + "/per_lanes/" + std::to_string(j);
      if (!p.is_object() || !p.contains("lanes") || !p.contains("cycles_per_load"))
        throw UsageError(what + ": (" + pk + ") is not {\"lanes\", \"cycles_per_load\"}");
      m.lanes.push_back(in_range(p["lanes"], what, pk + "/lanes", 1, 32));
      m.cycles.push_back(in_range(p["cycles_per_load"], what, pk + "/cycles_per_load", 1e-3, 1e6));
    }
    check_level(m, what, key);
    v.push_back(std::move(m));
  }
  return v;
}

json memory_levels_json(const std::vector<MemoryLevelCost>& levels) {
  json j = json::array();
  for (const auto& l : levels) j.push_back(json{{"level", l.level}, {"lanes", l.lanes}, {"cycles_per_load", l.cycles}});
  return j;
}

double LoadScaling::ratio(double from_lanes, double to_lanes) const {
  if (!level || !gather || !(from_lanes > 0) || !(to_lanes > 0)) return 1.0;
  const double now = level->at(sectors_per_lane * from_lanes);
  return now > 0 ? level->at(sectors_per_lane * to_lanes) / now : 1.0;
}

LoadScaling scale_load(const std::vector<MemoryLevelCost>& levels, double cycles_per_pass, double sectors_per_pass,
                       double lanes_per_pass) {
  LoadScaling s;
  if (levels.empty() || !(cycles_per_pass > 0) || !(sectors_per_pass > 0) || !(lanes_per_pass > 0)) return s;
  double best = 0;
  for (const auto& l : levels) {
    const double d = std::fabs(l.at(sectors_per_pass) - cycles_per_pass);
    if (!s.level || d < best) s.level = &l, best = d;
  }
  s.sectors_per_lane = sectors_per_pass / lanes_per_pass;
  s.gather = s.sectors_per_lane >= kGatherSectorsPerLane;
  return s;
}

}  // namespace divbench::model
