// What the forward-progress probes share: which options they accept and how many launches they run.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/kernels/progress.hpp"
#include "harness/common_settings.hpp"
#include "harness/config.hpp"
#include "harness/experiment.hpp"

namespace divbench {

// A probe's typed launch count. Probes run a few launches, not the sweeps' 201: each launch is a
// yes/no observation of progress (every launch is checked), and some run for up to 0.15 s (10^7
// iterations of work). --reps asks for checked launches; a probe caps it at its own maximum, and the
// cap, the request and the launches that run are all recorded (and said on stderr when capping).
struct ProbeRuns {
  int launches = 1;      // what runs
  int launches_cap = 1;  // this probe's maximum
  int reps_requested = 0;
};

// --reps as checked launches, capped at `cap`.
inline ProbeRuns probe_runs(const SettingValues& s, int cap) {
  ProbeRuns r;
  r.launches_cap = cap;
  r.reps_requested = static_cast<int>(s.integer("--reps"));
  r.launches = std::max(1, std::min(r.reps_requested, cap));
  return r;
}

// The one option every probe takes (its settings): --reps, as checked launches.
inline std::vector<SettingSpec> probe_settings() { return {reps_setting()}; }

inline json to_json(const ProbeRuns& r) {
  return json{{"launches", r.launches}, {"launches_cap", r.launches_cap}, {"reps_requested", r.reps_requested}};
}

inline std::vector<std::string> probe_notes(const ProbeRuns& r) {
  if (r.reps_requested <= r.launches_cap) return {};
  return {"--reps " + std::to_string(r.reps_requested) + " capped at " + std::to_string(r.launches_cap) +
          " checked launches (this probe's maximum)"};
}

// `launches` checked launches of one probe point: `one()` runs and checks one launch (throwing
// VerificationError on a contradiction) and returns its JSON; the runs are returned in order.
template <class F>
json repeat_launches(int launches, F one) {
  json runs = json::array();
  for (int i = 0; i < launches; ++i) runs.push_back(one());
  return runs;
}

// One probe point (a raw point): its checked launches (repeat_launches), then `record(runs, r)` fills
// the point's JSON (r.raw) and its Google Benchmark counters from them; "launches" and "runs" are
// added, and the point's wall time is what Google Benchmark reports.
template <class One, class Record>
PointResult probe_point(int launches, One one, Record record) {
  const auto t0 = std::chrono::steady_clock::now();
  PointResult r;
  r.timed = false;
  const json runs = repeat_launches(launches, one);
  record(runs, r);
  r.raw["launches"] = launches;
  r.raw["runs"] = runs;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// Aggregates over those runs: did any run set a flag, all of them; the largest value of a count.
inline bool any_run(const json& runs, const char* key) {
  return std::any_of(runs.begin(), runs.end(), [key](const json& r) { return r.at(key).get<bool>(); });
}
inline bool all_runs(const json& runs, const char* key) {
  return std::all_of(runs.begin(), runs.end(), [key](const json& r) { return r.at(key).get<bool>(); });
}
inline std::uint64_t max_run(const json& runs, const char* key) {
  std::uint64_t m = 0;
  for (const auto& r : runs) m = std::max(m, r.at(key).get<std::uint64_t>());
  return m;
}
inline std::uint64_t min_run(const json& runs, const char* key) {
  std::uint64_t m = ~0ull;
  for (const auto& r : runs) m = std::min(m, r.at(key).get<std::uint64_t>());
  return m;
}

// The probes whose lanes wait for each other (lock, peer-wait, producer-consumer) need independent
// thread scheduling (Volta, cc 7.0, and later): on a SIMT stack the waiting side can run first and
// spin until the cap while the side it waits for never runs, so a pre-ITS GPU is refused before any
// launch with one line (exit 2). The order probe waits for nothing and runs everywhere.
inline void require_independent_scheduling(const DeviceRecord& dev, const std::string& probe) {
  if (dev.cc_major >= 7) return;
  throw UsageError("--probe " + probe + " needs independent thread scheduling (cc 7.0 or later); " + dev.name +
                   " is cc " + dev.cc + " (pre-Volta: a diverged warp runs one side at a time, so a waiting lane "
                   "can starve the lane it waits for)");
}

inline json caps_json(const ProbeCaps& c) {
  return json{{"max_spins_per_wait", c.max_spins}, {"max_ns_per_launch", c.max_ns}};
}

// What every probe's Config holds (its own Config adds to it): the checked launches and the caps.
struct ProbeConfig {
  ProbeRuns runs;
  ProbeCaps caps;
};

// A probe's Config as parsed: --reps as its checked launches (capped at `cap`), the rest its defaults.
template <class Config>
Config parse_probe_config(const SettingValues& s, int cap) {
  Config c;
  c.runs = probe_runs(s, cap);
  return c;
}

// What every probe's config records of its launches and caps.
inline json probe_config_json(const ProbeConfig& c) {
  json j = to_json(c.runs);
  j["caps"] = caps_json(c.caps);
  return j;
}

}  // namespace divbench
