#include "config.hpp"

#include "divbench/core/errors.hpp"
#include "divbench/kernels/timed_kernel.hpp"

namespace divbench {

json to_json(const TimingConfig& t) {
  return json{{"reps", t.reps}, {"warmup", t.warmup}, {"sampling", sampling_name(t.sampling)},
              {"samples_kept", t.keep_samples}};
}

Sampling default_sampling(Body body) { return body_touches_memory(body) ? Sampling::single : Sampling::warp_per_sm; }

TimingConfig parse_timing(const RunOptions& o, Body body) {
  TimingConfig t;
  t.reps = o.reps;
  t.warmup = o.warmup;
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

std::vector<int> parse_placements(const RunOptions& o, int default_count) {
  const int n = o.has("--placements") ? o.placements : default_count;
  if (n < 1 || n > kPlacements)
    throw UsageError("--placements: " + std::to_string(n) + " is outside 1.." + std::to_string(kPlacements) +
                     " (the code placements the kernels are built at)");
  std::vector<int> v;
  for (int p = 0; p < n; ++p) v.push_back(p);
  return v;
}

void reject_options(const RunOptions& o, const std::string& who, const std::vector<std::string>& options,
                    const std::string& why) {
  if (o.all) return;
  for (const auto& opt : options)
    if (o.has(opt)) throw UsageError(who + ": " + opt + " does not apply (" + why + ")");
}

}  // namespace divbench
