#include "divbench/summary/spread.hpp"

#include "divbench/core/stats.hpp"

namespace divbench {

json spread_json(const std::vector<double>& values) {
  const Spread s = spread_of(values);
  return json{{"median", s.median}, {"min", s.min}, {"max", s.max}, {"spread_rel", s.rel}};
}

void put_spread(json& j, const std::string& key, const std::vector<double>& values) {
  if (values.empty()) {
    for (const char* suffix : {"", "_min", "_max"}) j[key + suffix] = nullptr;
    return;
  }
  const Spread s = spread_of(values);
  j[key] = s.median;
  j[key + "_min"] = s.min;
  j[key + "_max"] = s.max;
}

}  // namespace divbench
