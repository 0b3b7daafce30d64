#include "divbench/core/result.hpp"

namespace divbench {

json to_json(const DeviceRecord& d) {
  return json{{"index", d.index},
              {"name", d.name},
              {"cc", d.cc},
              {"sm_count", d.sm_count},
              {"sm_clock_khz", d.sm_clock_khz},
              {"mem_clock_khz", d.mem_clock_khz},
              {"max_threads_per_sm", d.max_threads_per_sm},
              {"max_blocks_per_sm", d.max_blocks_per_sm},
              {"warp_size", d.warp_size},
              {"driver", d.driver},
              {"runtime", d.runtime},
              {"pci_bus_id", d.pci_bus_id},
              {"uuid", d.uuid},
              {"measured_sm_clock_mhz", d.measured_sm_clock_mhz},
              {"driver_release", d.driver_release},
              {"max_sm_clock_mhz", d.max_sm_clock_mhz},
              {"sm_clock_now_mhz", d.sm_clock_now_mhz}};
}

DeviceRecord device_from_json(const json& j) {
  DeviceRecord d;
  d.index = j.value("index", 0);
  d.name = j.at("name").get<std::string>();
  d.cc = j.at("cc").get<std::string>();
  const auto dot = d.cc.find('.');
  if (dot != std::string::npos) {
    d.cc_major = std::stoi(d.cc.substr(0, dot));
    d.cc_minor = std::stoi(d.cc.substr(dot + 1));
  }
  d.sm_count = j.at("sm_count").get<int>();
  d.sm_clock_khz = j.at("sm_clock_khz").get<int>();
  d.mem_clock_khz = j.value("mem_clock_khz", 0);
  d.max_threads_per_sm = j.value("max_threads_per_sm", 0);
  d.max_blocks_per_sm = j.value("max_blocks_per_sm", 0);
  d.warp_size = j.value("warp_size", 32);
  d.driver = j.at("driver").get<std::string>();
  d.runtime = j.at("runtime").get<std::string>();
  d.pci_bus_id = j.value("pci_bus_id", "");
  d.uuid = j.value("uuid", "");
  d.measured_sm_clock_mhz = j.value("measured_sm_clock_mhz", 0.0);
  d.driver_release = j.value("driver_release", "");
  d.max_sm_clock_mhz = j.value("max_sm_clock_mhz", 0);
  d.sm_clock_now_mhz = j.value("sm_clock_now_mhz", 0);
  return d;
}

json to_json(const TimedPoint& p) {
  json j{{"k", p.k},
         {"median_cycles", p.cycles.median},
         {"min_cycles", p.cycles.min},
         {"max_cycles", p.cycles.max},
         {"mean_cycles", p.cycles.mean},
         {"stddev_cycles", p.cycles.stddev},
         {"cv", p.cycles.cv},
         {"n", p.cycles.n},
         {"launches", p.launches},
         {"throttled", p.throttled},
         {"clock_mhz", p.clock_mhz},
         {"clock_spread", p.clock_spread},
         {"clock_before_mhz", p.clock_before_mhz},
         {"clock_after_mhz", p.clock_after_mhz},
         {"wall_ms", p.wall_ms},
         {"gpu_ms", p.gpu_ms},
         {"region_ms", p.region_ms}};
  for (auto it = p.extra.begin(); it != p.extra.end(); ++it) j[it.key()] = it.value();
  if (!p.axes.empty()) j["axes"] = p.axes;
  if (!p.sample_cycles.empty()) j["samples"] = json{{"cycles", p.sample_cycles}, {"smid", p.sample_smid}};
  return j;
}

json to_json(const LinearFit& f) {
  return json{{"model", "T(k) = s*k + c"},
              {"s", f.s},
              {"c", f.c},
              {"r2", f.r2},
              {"n", f.n},
              {"max_rel_residual", f.max_rel_residual},
              {"residuals", f.residuals},
              {"quadratic", {{"q", f.quadratic.q},
                             {"t_stat", f.quadratic.t_stat},
                             {"p_value", f.quadratic.p_value},
                             {"rel_effect", f.quadratic.rel_effect},
                             {"superlinear", f.quadratic.superlinear}}}};
}

json to_json(const ResultRecord& r) {
  json j;
  j["schema"] = kResultSchema;
  j["experiment"] = r.experiment;
  j["device"] = to_json(r.device);
  const json prov = to_json(r.provenance);
  for (auto it = prov.begin(); it != prov.end(); ++it) j[it.key()] = it.value();  // kept at the top level
  j["config"] = r.config;
  json pts = json::array();
  for (const auto& p : r.points) pts.push_back(to_json(p));
  for (const auto& p : r.points_extra) pts.push_back(p);
  j["points"] = pts;
  if (r.has_fit) {
    j["fit"] = to_json(r.fit);
    if (!r.fit_placements.empty()) j["fit"]["placements"] = r.fit_placements;
  }
  j["summary"] = r.summary;
  j["timing"] = r.timing;
  if (!r.harness.empty()) j["harness"] = r.harness;
  if (!r.quality.is_null()) j["quality"] = r.quality;
  return j;
}

}  // namespace divbench
