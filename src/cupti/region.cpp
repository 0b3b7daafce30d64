#include "divbench/cupti/region.hpp"

#include <stdexcept>

namespace divbench {
namespace {

double need(const MetricValues& m, const char* name, const char* which) {
  const auto it = m.find(name);
  if (it == m.end()) throw std::invalid_argument(std::string("region efficiency: ") + which + " lacks " + name);
  return it->second;
}

}  // namespace

RegionEfficiency region_efficiency(const MetricValues& full, const MetricValues& twin) {
  RegionEfficiency r;
  r.inst = need(full, kMetricInst, "full launch") - need(twin, kMetricInst, "twin launch");
  r.thread_inst = need(full, kMetricThreadInst, "full launch") - need(twin, kMetricThreadInst, "twin launch");
  if (!(r.inst > 0)) r.why = "the zero-work twin executed as many warp instructions as the full launch";
  else if (r.thread_inst < 0) r.why = "the zero-work twin executed more thread instructions than the full launch";
  else r.ratio = r.thread_inst / r.inst;
  return r;
}

json to_json(const RegionEfficiency& r) {
  json j{{"inst", r.inst}, {"thread_inst", r.thread_inst}};
  if (r.ratio) j["ratio"] = *r.ratio;
  else {
    j["ratio"] = nullptr;
    j["why"] = r.why;
  }
  return j;
}

}  // namespace divbench
