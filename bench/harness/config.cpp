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

TimingConfig parse_timing(const SettingValues& s, Body body) {
  TimingConfig t;
  t.reps = static_cast<int>(s.integer("--reps"));
  t.warmup = s.has("--warmup") ? static_cast<int>(s.integer("--warmup")) : -1;
  t.sampling = s.has("--sampling") ? parse_sampling(s.text("--sampling")) : default_sampling(body);
  t.keep_samples = !s.flag("--no-samples");
  return t;
}

json to_json(const WorkConfig& w) {
  return json{{"body", body_name(w.body)}, {"map", lane_map_name(w.map)}, {"iters", w.iters}, {"seed", w.seed}};
}

WorkConfig parse_work(const SettingValues& s) {
  WorkConfig w;
  w.body = parse_body(s.text("--body"));
  w.map = parse_lane_map(s.text("--map"));
  w.iters = static_cast<std::uint32_t>(s.integer("--iters"));
  w.seed = s.whole("--seed");
  return w;
}

std::vector<int> all_path_counts() {
  std::vector<int> ks;
  for (int k = 1; k <= kWarpLanes; ++k) ks.push_back(k);
  return ks;
}

std::vector<int> parse_placements(const SettingValues& s) {
  const int n = static_cast<int>(s.integer("--placements"));  // 1..kPlacements, checked by the declaration
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(i * kPlacements / n);
  return v;
}

}  // namespace divbench
