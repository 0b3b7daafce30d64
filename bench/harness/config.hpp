// Typed building blocks of the experiments' configurations: how a point is timed (TimingConfig) and
// what work a k-way path runs (WorkConfig). Each experiment's Config holds these plus its own axes;
// parse_* does the validation (UsageError, exit 2, before any GPU work) and to_json writes exactly
// the fields that run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/core/body.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/core/lane_map.hpp"
#include "divbench/core/sampling.hpp"
#include "settings.hpp"

namespace divbench {

// Their values come from the declared settings (common_settings.hpp: defaults there, once).
struct TimingConfig {
  int reps = 0;         // timed samples per point (single: launches; warp-per-sm: warps over ceil(reps/SMs) launches)
  int warmup = -1;      // untimed launches before them; -1: the mode's default (warmup_launches)
  Sampling sampling = Sampling::warp_per_sm;
  bool keep_samples = true;  // raw samples in the result
};
json to_json(const TimingConfig& t);

// Warm-up launches a point runs: --warmup when given, else 1 for warp-per-SM sampling (one launch
// already runs the kernel once on every SM) and 3 for single sampling and fixed grids.
int warmup_launches(const TimingConfig& t, bool fixed_grid);

// The sampling a body gets unless --sampling says otherwise: warp-per-sm for bodies whose loops do
// not touch memory (validated by --sweep sampling: equal medians), single for the others (their
// warps share L2 and DRAM, so warps on other SMs could change what one warp measures).
Sampling default_sampling(Body body);

// --reps, --warmup, --sampling (default: default_sampling(body)), --no-samples (timing_settings()).
TimingConfig parse_timing(const SettingValues& s, Body body);

struct WorkConfig {
  Body body = Body::fma_chain;
  LaneMap map = LaneMap::modulo;
  std::uint32_t iters = 0;       // iterations per path (the unbalanced map shortens paths 1..k-1)
  std::uint64_t seed = 0;        // random lane permutation (permuted map)
};
json to_json(const WorkConfig& w);
WorkConfig parse_work(const SettingValues& s);  // --body, --map, --iters, --seed (work_settings())

// --placements N -> N placements spread evenly over the kPlacements built (the 128-byte window):
// 1 -> {0}, 2 -> {0, 4}, 4 -> {0, 2, 4, 6}, 8 -> {0, .., 7}; N in 1..kPlacements (placements_setting(),
// with the experiment's default count).
std::vector<int> parse_placements(const SettingValues& s);

// Every path count of a warp, k = 1..32: a k sweep's default list.
std::vector<int> all_path_counts();

}  // namespace divbench
