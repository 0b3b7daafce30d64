#include "divbench/core/run_conditions.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace divbench {
namespace {

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

void count_names(const json& names, std::map<std::string, int>& into) {
  if (!names.is_array()) return;
  for (const auto& n : names)
    if (n.is_string()) ++into[n.get<std::string>()];
}

json to_json(const std::map<std::string, int>& m) {
  json j = json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

}  // namespace

const std::vector<ClockEventReason>& clock_event_reasons() {
  // Bit values of nvml.h (driver 535+ names them nvmlClocksEventReason*, older ones ...ThrottleReason*).
  static const std::vector<ClockEventReason> r{
      {0x1, "gpu_idle", false},
      {0x2, "applications_clocks_setting", false},
      {0x4, "sw_power_cap", true},
      {0x8, "hw_slowdown", true},
      {0x10, "sync_boost", false},
      {0x20, "sw_thermal_slowdown", true},
      {0x40, "hw_thermal_slowdown", true},
      {0x80, "hw_power_brake_slowdown", true},
      {0x100, "display_clock_setting", false},
  };
  return r;
}

std::vector<std::string> reason_names(std::uint64_t mask) {
  std::vector<std::string> names;
  for (int b = 0; b < 64; ++b) {
    const std::uint64_t bit = std::uint64_t{1} << b;
    if (!(mask & bit)) continue;
    const char* key = nullptr;
    for (const auto& r : clock_event_reasons())
      if (r.bit == bit) key = r.key;
    if (key) {
      names.emplace_back(key);
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "unknown_0x%llx", static_cast<unsigned long long>(bit));
      names.emplace_back(buf);
    }
  }
  return names;
}

std::uint64_t throttle_bits(std::uint64_t mask) {
  std::uint64_t t = 0;
  for (const auto& r : clock_event_reasons())
    if (r.throttle) t |= r.bit;
  return mask & t;
}

OtherProcesses other_processes(const GpuProcesses& p) {
  OtherProcesses o;
  auto has = [](const std::vector<unsigned>& v, unsigned pid) { return std::find(v.begin(), v.end(), pid) != v.end(); };
  o.mps_client = p.self_pid != 0 && has(p.mps, p.self_pid);
  const std::vector<unsigned>& peers = o.mps_client ? p.mps : p.compute;
  std::vector<unsigned> all = peers;
  if (!o.mps_client)
    for (unsigned pid : p.mps)
      if (!has(all, pid)) all.push_back(pid);
  o.self_seen = p.self_pid != 0 && has(all, p.self_pid);
  if (o.self_seen) {
    for (unsigned pid : all)
      if (pid != p.self_pid) o.pids.push_back(pid);
    o.count = static_cast<int>(o.pids.size());
  } else {
    o.count = std::max(0, static_cast<int>(all.size()) - 1);  // one of them is divbench
  }
  return o;
}

json to_json(const GpuProcesses& p) {
  if (!p.read) return json{{"read", false}, {"reason", p.why_not}};
  const OtherProcesses o = other_processes(p);
  json j{{"read", true},       {"self_seen", o.self_seen}, {"others", o.pids},   {"others_count", o.count},
         {"mps_client", o.mps_client}, {"compute", p.compute}, {"graphics", p.graphics}};
  j["mig_mode"] = p.mig_mode ? json(*p.mig_mode) : json(nullptr);
  // The other processes' activity (NVML's utilization samples since divbench's first reading): what
  // tells an idle co-tenant (a context, no work) from one that runs kernels.
  if (p.activity_read) {
    // Every listed co-tenant has an entry: samples 0 says NVML recorded no work of it since then.
    json pids = json::object();
    for (unsigned pid : o.pids) {
      const auto it = p.activity.find(pid);
      const ProcessActivity a = it != p.activity.end() ? it->second : ProcessActivity{};
      pids[std::to_string(pid)] = json{{"samples", a.samples}, {"sm_max", a.sm_max}, {"mem_max", a.mem_max}};
    }
    j["activity"] = json{{"read", true},
                         {"since_us", p.activity_since_us},
                         {"samples_total", p.activity_samples_total},
                         {"pids", pids}};
  } else {
    j["activity"] = json{{"read", false}, {"reason", p.activity_why_not}};
  }
  return j;
}

json to_json(const RunConditions& c) {
  return json{{"sm_clock_mhz", or_null(c.sm_clock_mhz)},
              {"mem_clock_mhz", or_null(c.mem_clock_mhz)},
              {"power_w", or_null(c.power_w)},
              {"temperature_c", or_null(c.temperature_c)},
              {"reasons_mask", or_null(c.reasons)}};
}

bool record_conditions(json& point, const RunConditions& before, const RunConditions& after) {
  if (!before.available || !after.available) {
    point["conditions"] = json{{"available", false}, {"reason", before.available ? after.why_not : before.why_not}};
    return false;
  }
  const std::uint64_t any = before.reasons.value_or(0) | after.reasons.value_or(0);
  const std::uint64_t throttle = throttle_bits(any);
  json c{{"available", true}, {"before", to_json(before)}, {"after", to_json(after)}};
  c["reasons"] = reason_names(any);
  c["throttle_reasons"] = reason_names(throttle);
  if (!before.reasons || !after.reasons) c["reasons_read"] = false;  // NVML gave no reasons
  c["processes"] = json{{"before", to_json(before.processes)}, {"after", to_json(after.processes)}};
  point["conditions"] = c;
  return throttle != 0;
}

void add_conditions_summary(ResultRecord& r) {
  int with = 0, throttled = 0;
  std::map<std::string, int> by_throttle, by_any;
  auto visit = [&](const json& point) {
    if (!point.is_object() || !point.contains("conditions")) return;
    const json& c = point["conditions"];
    if (!c.value("available", false)) return;
    ++with;
    const json empty = json::array();
    const json& t = c.contains("throttle_reasons") ? c["throttle_reasons"] : empty;
    if (t.is_array() && !t.empty()) ++throttled;
    count_names(t, by_throttle);
    count_names(c.contains("reasons") ? c["reasons"] : empty, by_any);
  };
  for (const auto& p : r.points) visit(p.extra);
  for (const auto& p : r.points_extra) visit(p);
  r.summary["points_with_conditions"] = with;
  r.summary["points_with_throttle_reasons"] = throttled;
  r.summary["throttle_reasons"] = to_json(by_throttle);
  r.summary["clock_event_reasons"] = to_json(by_any);
}

}  // namespace divbench
