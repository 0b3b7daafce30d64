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
    if (l.contains("warps_per_sm")) m.warps_per_sm = static_cast<int>(in_range(l["warps_per_sm"], what, key + "/warps_per_sm", 1, 64));
    for (std::size_t j = 0; j < l["lanes"].size(); ++j) {
      m.lanes.push_back(in_range(l["lanes"][j], what, key + "/lanes/" + std::to_string(j), 1, 32));
      m.cycles.push_back(in_range(l["cycles_per_load"][j], what, key + "/cycles_per_load/" + std::to_string(j), 1e-3, 1e6));
    }
    check_level(m, what, key);
    v.push_back(std::move(m));
  }
  return v;
}

namespace {

// The levels of one list of summary.levels' shape, measured at `warps` warps per SM; `key` its JSON path.
void levels_of(const json& levels, int warps, const std::string& what, const std::string& key, std::vector<MemoryLevelCost>& v) {
  if (!levels.is_array() || levels.empty()) throw UsageError(what + ": (" + key + ") is not a non-empty list");
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const std::string lk = key + "/" + std::to_string(i);
    const json& l = levels[i];
    if (!l.is_object() || !l.contains("level") || !l["level"].is_string() || !l.contains("per_lanes") || !l["per_lanes"].is_array())
      throw UsageError(what + ": (" + lk + ") is not {\"level\", \"per_lanes\"}");
    MemoryLevelCost m;
    m.level = l["level"].get<std::string>();
    m.warps_per_sm = warps;
    for (std::size_t j = 0; j < l["per_lanes"].size(); ++j) {
      const json& p = l["per_lanes"][j];
      const std::string pk = lk + "/per_lanes/" + std::to_string(j);
      if (!p.is_object() || !p.contains("lanes") || !p.contains("cycles_per_load"))
        throw UsageError(what + ": (" + pk + ") is not {\"lanes\", \"cycles_per_load\"}");
      m.lanes.push_back(in_range(p["lanes"], what, pk + "/lanes", 1, 32));
      m.cycles.push_back(in_range(p["cycles_per_load"], what, pk + "/cycles_per_load", 1e-3, 1e6));
    }
    check_level(m, what, lk);
    v.push_back(std::move(m));
  }
}

}  // namespace

std::vector<MemoryLevelCost> memory_levels_from_result(const json& result, const std::string& what) {
  if (!result.is_object() || result.value("experiment", "") != "memory" || !result.contains("summary") ||
      !result["summary"].is_object() || !result["summary"].contains("levels"))
    throw UsageError(what + ": not a --sweep memory result (experiment \"memory\" with summary.levels)");
  std::vector<MemoryLevelCost> v;
  levels_of(result["summary"]["levels"], 1, what, "/summary/levels", v);
  const json& occ = result["summary"].value("occupancy", json::array());
  if (!occ.is_array()) throw UsageError(what + ": (/summary/occupancy) is not a list");
  for (std::size_t i = 0; i < occ.size(); ++i) {
    const std::string key = "/summary/occupancy/" + std::to_string(i);
    if (!occ[i].is_object() || !occ[i].contains("warps_per_sm") || !occ[i].contains("levels"))
      throw UsageError(what + ": (" + key + ") is not {\"warps_per_sm\", \"levels\"}");
    levels_of(occ[i]["levels"], static_cast<int>(in_range(occ[i]["warps_per_sm"], what, key + "/warps_per_sm", 2, 64)), what,
              key + "/levels", v);
  }
  return v;
}

json memory_levels_json(const std::vector<MemoryLevelCost>& levels) {
  json j = json::array();
  for (const auto& l : levels)
    j.push_back(json{{"level", l.level}, {"warps_per_sm", l.warps_per_sm}, {"lanes", l.lanes}, {"cycles_per_load", l.cycles}});
  return j;
}

double LoadScaling::ratio(double from_lanes, double to_lanes) const {
  if (!level || !gather || !(from_lanes > 0) || !(to_lanes > 0)) return 1.0;
  const double now = level->at(sectors_per_lane * from_lanes);
  return now > 0 ? level->at(sectors_per_lane * to_lanes) / now : 1.0;
}

LoadScaling scale_load(const std::vector<MemoryLevelCost>& levels, double cycles_per_pass, double sectors_per_pass,
                       double lanes_per_pass, double warps_per_sm) {
  LoadScaling s;
  if (levels.empty() || !(cycles_per_pass > 0) || !(sectors_per_pass > 0) || !(lanes_per_pass > 0)) return s;
  // The warps per SM measured nearest the kernel's (by ratio).
  const double w = std::max(1.0, warps_per_sm);
  int warps = levels.front().warps_per_sm;
  for (const auto& l : levels)
    if (std::fabs(std::log(l.warps_per_sm / w)) < std::fabs(std::log(warps / w))) warps = l.warps_per_sm;
  double best = 0;
  for (const auto& l : levels) {
    if (l.warps_per_sm != warps) continue;
    const double d = std::fabs(l.at(sectors_per_pass) - cycles_per_pass);
    if (!s.level || d < best) s.level = &l, best = d;
  }
  s.sectors_per_lane = sectors_per_pass / lanes_per_pass;
  s.gather = s.sectors_per_lane >= kGatherSectorsPerLane;
  return s;
}

}  // namespace divbench::model
