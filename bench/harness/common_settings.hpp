// The settings declared once for several readers (settings.hpp): the harness's own (selection, device,
// output, counters, retries) and those experiments share with one meaning (timing, work, path and
// iteration lists, placements). An experiment lists the ones it reads, with its own default where it
// differs (reps_setting().with_default("100")).
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "settings.hpp"

namespace divbench {

// What the harness reads for every selection (runner.cpp): --sweep, --probe, --all, --list, --axis,
// --device, --out, --format, --quiet, --metrics, --max-attempts, --noise-factor.
const std::vector<SettingSpec>& harness_settings();

// Shared experiment settings.
SettingSpec reps_setting();        // --reps: timed samples per point (probes: checked launches)
SettingSpec warmup_setting();      // --warmup: untimed launches (no default: the sampling mode's)
SettingSpec sampling_setting();    // --sampling warp-per-sm|single (no default: the body's)
SettingSpec no_samples_setting();  // --no-samples
SettingSpec placements_setting();  // --placements N: a count, 1..kPlacements
SettingSpec iters_setting();       // --iters: work per path
SettingSpec map_setting();         // --map
SettingSpec body_setting();        // --body
SettingSpec seed_setting();        // --seed: 0..2^64-1
SettingSpec paths_setting();       // --k: a list of path counts 1..32 ("1-32", "1,2,4")
SettingSpec iterations_setting();  // --n: a list of iteration counts 0..10^8

// Every shared setting (the harness's and the experiments'): what an experiment's own alias is checked against.
const std::vector<SettingSpec>& shared_settings();

// The timing settings a timed sweep reads (parse_timing): --reps, --warmup, --sampling, --no-samples.
std::vector<SettingSpec> timing_settings();
// The work settings of a k-way path (parse_work): --body, --map, --iters, --seed.
std::vector<SettingSpec> work_settings();
// An experiment's settings from its own and shared lists, in order: joined({{own...}, timing_settings()}).
std::vector<SettingSpec> joined(std::initializer_list<std::vector<SettingSpec>> parts);

}  // namespace divbench
