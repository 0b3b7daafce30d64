// How a summary reports a quantity measured at several code placements (or any conditions that
// should not matter): its median with min and max, from core/stats.hpp's spread_of. Host-only.
#pragma once
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench {

// {"median", "min", "max", "spread_rel"} of `values` (non-empty).
json spread_json(const std::vector<double>& values);

// j["<key>"] = the median, j["<key>_min"], j["<key>_max"]; all null when `values` is empty.
void put_spread(json& j, const std::string& key, const std::vector<double>& values);

}  // namespace divbench
