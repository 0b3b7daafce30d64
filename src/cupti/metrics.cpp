// collect_metrics(): one profiling session per device, reused across points; any reason profiling is
// impossible is reported once and sticks for the rest of the process.
#include "divbench/cupti/metrics.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "divbench/cupti/region.hpp"
#include "range_profiler.hpp"

namespace divbench {
namespace {

struct State {
  std::string unavailable;                          // sticky reason, empty while profiling works
  std::unique_ptr<cupti::RangeProfiler> profiler;   // for profiler->device()
  std::vector<std::string> metrics;
};

State& state() {
  // Never destroyed: CUPTI must not be torn down from a static destructor after the CUDA runtime.
  static State* s = new State;
  return *s;
}

json unavailable(State& s, const std::string& reason) {
  if (s.unavailable.empty()) {
    s.unavailable = reason;
    std::fprintf(stderr, "divbench: metrics unavailable: %s; timing continues without counters\n", reason.c_str());
  }
  return json{{"available", false}, {"reason", s.unavailable}};
}

// The session for the current device and these metrics (created on first use). Throws Unavailable.
cupti::RangeProfiler& session(State& s, const std::vector<std::string>& metrics) {
  int dev = -1;
  cudaGetDevice(&dev);
  if (!s.profiler || s.profiler->device() != dev || s.metrics != metrics) {
    s.profiler.reset();
    std::string why;
    const cupti::Api* api = cupti::load_api(&why);
    if (!api) throw cupti::Unavailable(why);
    s.profiler = std::make_unique<cupti::RangeProfiler>(*api, metrics);
    s.metrics = metrics;
  }
  return *s.profiler;
}

}  // namespace

const std::vector<std::string>& default_metrics() {
  static const std::vector<std::string> m{kMetricRatio, kMetricInst, kMetricThreadInst};
  return m;
}

json collect_metrics(const std::function<void()>& launch_once, const std::vector<std::string>& metrics) {
  State& s = state();
  if (const char* env = std::getenv("DIVBENCH_CUPTI"); env && std::strcmp(env, "off") == 0 && s.unavailable.empty())
    unavailable(s, "disabled by DIVBENCH_CUPTI=off");
  if (!s.unavailable.empty()) {
    launch_once();
    return unavailable(s, s.unavailable);
  }
  bool launched = false;
  try {
    cupti::RangeProfiler& p = session(s, metrics);
    const cupti::Measurement m = p.profile(launch_once, &launched);
    json values = json::object();
    for (const auto& name : metrics) values[name] = m.values.at(name);
    std::string why;
    return json{{"available", true},   {"values", values},         {"chip", p.chip()},
                {"passes", p.passes()}, {"profile_ms", m.wall_ms},  {"library", cupti::load_api(&why)->path},
                {"mode", "CUPTI range profiler, auto range, kernel replay"}};
  } catch (const cupti::Unavailable& e) {
    s.profiler.reset();
    if (!launched) launch_once();
    return unavailable(s, e.what());
  }
}

json collect_point_metrics(const std::function<void()>& launch_once, const std::function<void()>& launch_twin) {
  json full = collect_metrics(launch_once);
  if (!launch_twin) return full;
  const json twin = collect_metrics(launch_twin);
  if (!full.value("available", false)) return full;
  if (!twin.value("available", false)) {
    full["region"] = json{{"ratio", nullptr}, {"why", "twin launch not profiled: " + twin.value("reason", std::string())}};
    return full;
  }
  full["twin"] = twin["values"];
  full["twin_profile_ms"] = twin["profile_ms"];
  MetricValues f, t;
  for (const auto& [k, v] : full["values"].items()) f[k] = v.get<double>();
  for (const auto& [k, v] : twin["values"].items()) t[k] = v.get<double>();
  full["region"] = to_json(region_efficiency(f, t));
  return full;
}

}  // namespace divbench
