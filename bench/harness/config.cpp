#include "config.hpp"

#include "divbench/core/errors.hpp"
#include "divbench/core/warp.hpp"
#include "divbench/kernels/timed_kernel.hpp"

namespace divbench {

json to_json(const TimingConfig& t) {
  const json warmup = t.warmup >= 0 ? json(t.warmup) : json{{"warp-per-sm", 1}, {"single", 3}};
  return json{{"reps", t.reps}, {"warmup", warmup}, {"sampling", sampling_name(t.sampling)},
              {"samples_kept", t.keep_samples}};
}

int warmup_launches(const TimingConfig& t, bool fixed_grid) {
  if (t.warmup >= 0) return t.warmup;
  return !fixed_grid && t.sampling == Sampling::warp_per_sm ? 1 : 3;
}

Sampling default_sampling(Body body) { return body_touches_memory(body) ? Sampling::single : Sampling::warp_per_sm; }

TimingConfig parse_timing(const RunOptions& o, Body body) {
  TimingConfig t;
  t.reps = o.reps;
  t.warmup = o.has("--warmup") ? o.warmup : -1;
  t.sampling = o.sampling.empty() ? default_sampling(body) : parse_sampling(o.sampling);
  t.keep_samples = o.samples;
  return t;
}

json to_json(const WorkConfig& w) {
  return json{{"body", body_name(w.body)}, {"map", lane_map_name(w.map)}, {"iters", w.iters}, {"seed", w.seed}};
}

WorkConfig parse_work(const RunOptions& o) {
  WorkConfig w;
  w.body = parse_body(o.body);
  w.map = parse_lane_map(o.map);
  w.iters = static_cast<std::uint32_t>(o.iters);
  w.seed = o.seed;
  return w;
}

std::vector<int> all_path_counts() {
  std::vector<int> ks;
  for (int k = 1; k <= kWarpLanes; ++k) ks.push_back(k);
  return ks;
}

std::vector<int> parse_placements(const RunOptions& o, int default_count) {
  const int n = o.has("--placements") ? o.placements : default_count;
  if (n < 1 || n > kPlacements)
    throw UsageError("--placements: " + std::to_string(n) + " is outside 1.." + std::to_string(kPlacements) +
                     " (the code placements the kernels are built at)");
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(i * kPlacements / n);
  return v;
}

}  // namespace divbench
