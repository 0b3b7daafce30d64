// What the forward-progress probes share: which options they accept and how many launches they run.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/kernels/progress.hpp"
#include "harness/options.hpp"

namespace divbench {

// Probes run a few launches, not the sweeps' 201: each launch is a yes/no observation of progress
// (every launch is checked), and some run for up to 0.15 s (10^7 iterations of work).
inline int probe_launches(const RunOptions& o, int most) { return std::max(1, std::min(o.reps, most)); }

// The probes take no --k, --body or --map (one warp, fixed shapes); with --all those options are
// meant for the sweeps and are ignored here.
inline void reject_sweep_options(const RunOptions& o, const std::string& probe) {
  if (o.all) return;
  if (!o.ks.empty()) throw UsageError("--probe " + probe + ": --k does not apply (one warp, fixed shape)");
  if (o.body != "fma_chain") throw UsageError("--probe " + probe + ": --body does not apply");
  if (o.map != "modulo") throw UsageError("--probe " + probe + ": --map does not apply");
}

// `launches` checked launches of one probe point: `one()` runs and checks one launch (throwing
// VerificationError on a contradiction) and returns its JSON; the runs are returned in order.
template <class F>
json repeat_launches(int launches, F one) {
  json runs = json::array();
  for (int i = 0; i < launches; ++i) runs.push_back(one());
  return runs;
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

inline json caps_json(const ProbeCaps& c) {
  return json{{"max_spins_per_wait", c.max_spins}, {"max_ns_per_launch", c.max_ns}};
}

}  // namespace divbench
