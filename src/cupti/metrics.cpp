// collect_launch_metrics(): one profiler configuration per device, reused across calls; the launches
// of a call share profiler sessions of up to kMaxLaunchesPerSession ranges each. Any reason profiling
// is impossible is reported once and sticks for the rest of the process.
#include "divbench/cupti/metrics.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "divbench/cuda/check.hpp"
#include "divbench/cupti/region.hpp"
#include "range_profiler.hpp"

namespace divbench {
namespace {

// Ranges per session: the counter-data image grows with it (a few KB per range); --all queues a
// few hundred launches, so this is one or two sessions.
constexpr std::size_t kMaxLaunchesPerSession = 256;

struct State {
  std::string unavailable;                          // sticky reason, empty while profiling works
  std::unique_ptr<cupti::RangeProfiler> profiler;   // configured for `metrics` on profiler->device()
  std::vector<std::string> metrics;
  cupti::Replay replay = cupti::Replay::user;
};

// DIVBENCH_CUPTI_REPLAY=kernel|user (default user): who replays the launches for the metrics' passes.
// Throws cupti::Unavailable naming a value that is neither.
cupti::Replay replay_from_env() {
  const char* env = std::getenv("DIVBENCH_CUPTI_REPLAY");
  if (!env || !*env || std::strcmp(env, "user") == 0) return cupti::Replay::user;
  if (std::strcmp(env, "kernel") == 0) return cupti::Replay::kernel;
  throw cupti::Unavailable(std::string("DIVBENCH_CUPTI_REPLAY='") + env + "' is neither kernel nor user");
}

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

// The profiler for the current device and these metrics (created on first use). Throws Unavailable.
cupti::RangeProfiler& profiler(State& s, const std::vector<std::string>& metrics) {
  int dev = -1;
  cudaGetDevice(&dev);
  const cupti::Replay replay = replay_from_env();
  if (!s.profiler || s.profiler->device() != dev || s.metrics != metrics || s.replay != replay) {
    s.profiler.reset();
    std::string why;
    const cupti::Api* api = cupti::load_api(&why);
    if (!api) throw cupti::Unavailable(why);
    std::vector<std::string> required;
    for (const auto& m : required_metrics())
      if (std::find(metrics.begin(), metrics.end(), m) != metrics.end()) required.push_back(m);
    s.profiler = std::make_unique<cupti::RangeProfiler>(*api, metrics, required, replay);
    s.metrics = metrics;
    s.replay = replay;
  }
  return *s.profiler;
}

json measured(const cupti::RangeProfiler& p, const cupti::Measurement& m, std::size_t session_launches) {
  json values = json::object();
  for (const auto& name : p.metrics()) values[name] = m.values.at(name);
  std::string why;
  json j{{"available", true},
         {"values", values},
         {"chip", p.chip()},
         {"passes", p.passes()},
         {"profile_ms", m.wall_ms},
         {"session_launches", session_launches},
         {"library", cupti::load_api(&why)->path},
         {"replay", cupti::replay_name(p.replay())},
         {"passes_run", p.passes_run()},
         {"mode", std::string("CUPTI range profiler, auto range, ") + cupti::replay_name(p.replay()) +
                      " replay, one session for many launches"}};
  if (!p.missing().empty()) j["missing"] = p.missing();
  return j;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

MetricValues values_of(const json& values) {
  MetricValues v;
  for (const auto& [k, x] : values.items()) v[k] = x.get<double>();
  return v;
}

}  // namespace

const std::vector<std::string>& default_metrics() {
  static const std::vector<std::string> m{kMetricRatio,      kMetricInst,          kMetricThreadInst,
                                          kMetricPredOnRatio, kMetricThreadInstPredOn, kMetricBranchUniformPct,
                                          kMetricBranchTargets, kMetricBranchTargetsUniform};
  return m;
}

// DIVBENCH_CUPTI=basic: the hardware counters only (one pass, nothing instrumented). The three
// branch-target metrics exist only as SASS-instrumented counters, which make the profiled kernel run
// an instrumented branch per executed branch (its loop's back-branch included); their cost is that.
bool basic_set() {
  const char* env = std::getenv("DIVBENCH_CUPTI");
  return env && std::strcmp(env, "basic") == 0;
}

const std::vector<std::string>& basic_metrics() {
  static const std::vector<std::string> m{kMetricRatio, kMetricInst, kMetricThreadInst, kMetricPredOnRatio,
                                          kMetricThreadInstPredOn};
  return m;
}

const std::vector<std::string>& required_metrics() {
  static const std::vector<std::string> m{kMetricRatio, kMetricInst, kMetricThreadInst};
  return m;
}

std::vector<json> collect_launch_metrics(const std::vector<std::function<void()>>& launches,
                                         const std::vector<std::string>& metrics, ProfileStats* stats) {
  State& s = state();
  std::vector<json> out;
  out.reserve(launches.size());
  if (const char* env = std::getenv("DIVBENCH_CUPTI"); env && std::strcmp(env, "off") == 0 && s.unavailable.empty())
    unavailable(s, "disabled by DIVBENCH_CUPTI=off");
  std::size_t done = 0;  // functions that ran, profiled or not
  try {
    if (s.unavailable.empty() && !launches.empty()) {
      cupti::RangeProfiler& p = profiler(s, metrics);
      while (done < launches.size()) {
        const std::size_t n = std::min(kMaxLaunchesPerSession, launches.size() - done);
        const std::vector<std::function<void()>> chunk(launches.begin() + static_cast<std::ptrdiff_t>(done),
                                                       launches.begin() + static_cast<std::ptrdiff_t>(done + n));
        const auto t0 = std::chrono::steady_clock::now();
        std::size_t ran = 0;
        try {
          const std::vector<cupti::Measurement> ms = p.profile(chunk, &ran);
          for (const auto& m : ms) out.push_back(measured(p, m, n));
        } catch (const cupti::Unavailable&) {
          done += ran;  // these ran but were not measured
          throw;
        }
        done += n;
        if (stats) {
          stats->launches += n;
          stats->sessions += 1;
          stats->wall_ms += ms_since(t0);
        }
      }
    }
  } catch (const cupti::Unavailable& e) {
    s.profiler.reset();
    unavailable(s, e.what());
  }
  // Whatever was not measured: run what has not run yet (same order), and say why.
  while (out.size() < launches.size()) {
    if (out.size() >= done) launches[out.size()]();
    out.push_back(unavailable(s, s.unavailable));
  }
  return out;
}

json collect_metrics(const std::function<void()>& launch_once, const std::vector<std::string>& metrics) {
  return collect_launch_metrics({launch_once}, metrics).at(0);
}

std::vector<json> collect_points_metrics(const std::vector<PointLaunches>& all_points, ProfileStats* stats) {
  // Points that share a key with an earlier one are answered from its object (same launches).
  std::vector<std::size_t> source(all_points.size());
  std::map<std::string, std::size_t> first_of, sharing;
  std::vector<PointLaunches> points;
  for (std::size_t i = 0; i < all_points.size(); ++i) {
    const std::string& key = all_points[i].key;
    if (!key.empty()) ++sharing[key];
    if (!key.empty() && first_of.count(key)) {
      source[i] = first_of[key];
      continue;
    }
    source[i] = points.size();
    if (!key.empty()) first_of[key] = points.size();
    points.push_back(all_points[i]);
  }
  std::vector<std::function<void()>> launches;
  for (const auto& p : points) {
    launches.push_back(p.full);
    if (p.twin) launches.push_back(p.twin);
  }
  const bool basic = basic_set();
  std::vector<json> each = collect_launch_metrics(launches, basic ? basic_metrics() : default_metrics(), stats);
  if (basic)
    for (auto& e : each)
      if (e.value("available", false))
        e["not_collected"] = json{{"metrics", json::array({kMetricBranchUniformPct, kMetricBranchTargets,
                                                           kMetricBranchTargetsUniform})},
                                  {"why", "DIVBENCH_CUPTI=basic: hardware counters only, no SASS instrumentation"}};
  std::vector<json> out;
  std::size_t i = 0;
  for (const auto& p : points) {
    json full = each.at(i++);
    if (!p.twin) {
      out.push_back(std::move(full));
      continue;
    }
    const json& twin = each.at(i++);
    if (full.value("available", false)) {
      if (!twin.value("available", false)) {
        full["region"] = json{{"ratio", nullptr}, {"why", "twin launch not profiled: " + twin.value("reason", std::string())}};
      } else {
        full["twin"] = twin["values"];
        full["twin_profile_ms"] = twin["profile_ms"];
        full["region"] = to_json(region_efficiency(values_of(full["values"]), values_of(twin["values"])));
      }
    }
    out.push_back(std::move(full));
  }
  std::vector<json> answered;
  answered.reserve(all_points.size());
  for (std::size_t i = 0; i < all_points.size(); ++i) {
    json m = out.at(source[i]);
    if (!all_points[i].key.empty()) {
      m["launch_key"] = all_points[i].key;
      m["points_sharing_launch"] = sharing.at(all_points[i].key);
    }
    answered.push_back(std::move(m));
  }
  return answered;
}

json collect_point_metrics(const std::function<void()>& launch_once, const std::function<void()>& launch_twin) {
  return collect_points_metrics({PointLaunches{launch_once, launch_twin}}).at(0);
}

DeferredMetrics::DeferredMetrics(std::function<void(int)> select_device) : select_device_(std::move(select_device)) {
  if (!select_device_) select_device_ = [](int dev) { DIVBENCH_CUDA_CHECK(cudaSetDevice(dev)); };
}

void DeferredMetrics::add(int device, PointLaunches launches, std::function<void(json)> deliver) {
  queued_.push_back(Queued{device, std::move(launches), std::move(deliver)});
}

json DeferredMetrics::run(const std::function<void(const std::string&)>& note) {
  if (queued_.empty()) return nullptr;
  std::vector<int> devices;
  for (const auto& q : queued_)
    if (std::find(devices.begin(), devices.end(), q.device) == devices.end()) devices.push_back(q.device);
  ProfileStats stats;
  const auto t0 = std::chrono::steady_clock::now();
  for (int dev : devices) {
    std::vector<PointLaunches> points;
    std::vector<const Queued*> which;
    for (const auto& q : queued_)
      if (q.device == dev) {
        points.push_back(q.launches);
        which.push_back(&q);
      }
    if (note)
      note("counters: profiling the metric launches of " + std::to_string(points.size()) + " point(s) on device " +
           std::to_string(dev));
    select_device_(dev);
    ProfileStats dev_stats;
    const std::vector<json> results = collect_points_metrics(points, &dev_stats);
    for (std::size_t i = 0; i < results.size(); ++i) which[i]->deliver(results[i]);
    if (note) {
      char line[160];
      std::snprintf(line, sizeof line, "counters: %zu launch(es) profiled in %zu session(s), %.2f s", dev_stats.launches,
                    dev_stats.sessions, dev_stats.wall_ms / 1000.0);
      note(dev_stats.launches ? line : "counters: none profiled (metrics unavailable)");
    }
    stats.launches += dev_stats.launches;
    stats.sessions += dev_stats.sessions;
    stats.wall_ms += dev_stats.wall_ms;
  }
  const std::size_t points = queued_.size();
  queued_.clear();
  return json{{"points", points}, {"launches", stats.launches}, {"sessions", stats.sessions},
              {"sessions_s", stats.wall_ms / 1000.0}, {"wall_s", ms_since(t0) / 1000.0}};
}

}  // namespace divbench
