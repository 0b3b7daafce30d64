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
    throw UsageError(what + ": (" + key + ") is " + v.dump() + ", outside " + json(lo).dump() + ".." + json(hi).dump() + " cycles");
  return x;
}

MemoryLevelCost level_from_json(const json& l, const std::string& what, const std::string& key) {
  if (!l.is_object() || !l.contains("level") || !l["level"].is_string() || l["level"].get<std::string>().empty())
    throw UsageError(what + ": (" + key + ") is not {\"level\", \"fixed_cycles\", \"cycles_per_sector\"}");
  MemoryLevelCost m;
  m.level = l["level"].get<std::string>();
  if (!l.contains("fixed_cycles") || !l.contains("cycles_per_sector"))
    throw UsageError(what + ": (" + key + ") level " + m.level + " has no fitted line (fixed_cycles, cycles_per_sector)");
  m.fixed_cycles = in_range(l["fixed_cycles"], what, key + "/fixed_cycles", -1e6, 1e6);
  m.cycles_per_sector = in_range(l["cycles_per_sector"], what, key + "/cycles_per_sector", -1e4, 1e4);
  return m;
}

}  // namespace

std::vector<MemoryLevelCost> memory_levels_from_json(const json& levels, const std::string& what) {
  if (!levels.is_array() || levels.empty()) throw UsageError(what + ": memory levels are not a non-empty list");
  std::vector<MemoryLevelCost> v;
  for (std::size_t i = 0; i < levels.size(); ++i) v.push_back(level_from_json(levels[i], what, "/memory_levels/" + std::to_string(i)));
  return v;
}

std::vector<MemoryLevelCost> memory_levels_from_result(const json& result, const std::string& what) {
  if (!result.is_object() || result.value("experiment", "") != "memory" || !result.contains("summary") ||
      !result["summary"].is_object() || !result["summary"].contains("levels"))
    throw UsageError(what + ": not a --sweep memory result (experiment \"memory\" with summary.levels)");
  const json& levels = result["summary"]["levels"];
  if (!levels.is_array() || levels.empty()) throw UsageError(what + ": (/summary/levels) is not a non-empty list");
  std::vector<MemoryLevelCost> v;
  for (std::size_t i = 0; i < levels.size(); ++i) v.push_back(level_from_json(levels[i], what, "/summary/levels/" + std::to_string(i)));
  return v;
}

json memory_levels_json(const std::vector<MemoryLevelCost>& levels) {
  json j = json::array();
  for (const auto& l : levels)
    j.push_back(json{{"level", l.level}, {"fixed_cycles", l.fixed_cycles}, {"cycles_per_sector", l.cycles_per_sector}});
  return j;
}

LoadSplit split_load_pass(const std::vector<MemoryLevelCost>& levels, double cycles_per_pass, double sectors_per_pass,
                          double lanes_per_pass) {
  LoadSplit s;
  if (levels.empty() || !(cycles_per_pass > 0) || !(sectors_per_pass > 0) || !(lanes_per_pass > 0)) return s;
  double best = 0;
  for (const auto& l : levels) {
    const double d = std::fabs(l.fixed_cycles + l.cycles_per_sector * sectors_per_pass - cycles_per_pass);
    if (!s.level || d < best) s.level = &l, best = d;
  }
  s.gather = sectors_per_pass >= kGatherSectorsPerLane * lanes_per_pass;
  if (s.gather) s.sector_cycles = std::clamp(std::max(0.0, s.level->cycles_per_sector) * sectors_per_pass, 0.0, cycles_per_pass);
  return s;
}

}  // namespace divbench::model
