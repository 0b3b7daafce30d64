#include "common_settings.hpp"

#include <cerrno>
#include <cstdlib>

#include "divbench/core/body.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/lane_map.hpp"
#include "divbench/core/sampling.hpp"
#include "divbench/kernels/timed_kernel.hpp"
#include "k_list.hpp"

namespace divbench {
namespace {

SettingSpec shared(SettingSpec s) {
  s.shared = true;
  return s;
}

SettingSpec integer(std::string option, std::string def, std::string unit, std::string help, double lo, double hi) {
  SettingSpec s{std::move(option), SettingType::integer, std::move(def), std::move(unit), std::move(help)};
  s.min = lo;
  s.max = hi;
  return shared(s);
}

SettingSpec text(std::string option, std::string def, std::string help, std::vector<std::string> choices = {}) {
  SettingSpec s{std::move(option), SettingType::text, std::move(def), "", std::move(help)};
  s.choices = std::move(choices);
  return shared(s);
}

SettingSpec flag(std::string option, std::string help) {
  return shared(SettingSpec{std::move(option), SettingType::flag, "", "", std::move(help)});
}

}  // namespace

const std::vector<SettingSpec>& harness_settings() {
  static const std::vector<SettingSpec> v = [] {
    std::vector<SettingSpec> h{
        text("--sweep", "", "Run a sweep experiment (see --list), e.g. k"),
        text("--probe", "", "Run a probe experiment (see --list), e.g. lock"),
        flag("--all", "Run every dynamic experiment (the whole reproduction)"),
        flag("--list", "List the experiments (with --format json: every declared axis and setting) and exit"),
        text("--axis", "",
             "NAME=VALUES: set a declared axis of the selected experiment(s) by its name, e.g. --axis k=1-8 or "
             "--axis arms=2,4 (repeatable; --list --format json names them)"),
        text("--device", "0", "GPU index, or 'all' for one result per GPU of the host"),
        text("--out", "", "Write results: a FILE (one result) or a DIR (DIR/ is created if missing)"),
        text("--format", "console", "Console output: console|json|csv", {"console", "json", "csv"}),
        flag("--quiet", "No progress or tables; errors only"),
        flag("--metrics", "Also read the efficiency counters through CUPTI (one extra launch per point)"),
        integer("--max-attempts", "3", "measurements",
                "Measurements of a point judged disturbed (co-tenant, noise, throttling) before it is kept as "
                "disturbed",
                1, 100)};
    SettingSpec noise{"--noise-factor", SettingType::number, "", "x quiet level",
                      "Allowed max-min of a point's samples, as a multiple of the quiet level of its class "
                      "(data/noise_criterion.json; default its factor)"};
    noise.min = 1;
    noise.max = 1e6;
    h.push_back(shared(noise));
    return h;
  }();
  return v;
}

SettingSpec reps_setting() {
  return integer("--reps", "201", "samples",
                 "Timed samples per point, one warp's region each (single: one launch each; warp-per-sm: "
                 "ceil(reps/SMs) launches; occupancy: launches; probes: checked launches, capped per probe)",
                 1, 1000000);
}

SettingSpec warmup_setting() {
  return integer("--warmup", "", "launches",
                 "Warm-up launches per point, not timed (default: 1 with warp-per-sm, 3 otherwise)", 0, 100000);
}

SettingSpec sampling_setting() {
  return text("--sampling", "",
              "warp-per-sm (one warp on every SM per launch) or single (one warp per launch); default per body",
              {"warp-per-sm", "single"});
}

SettingSpec no_samples_setting() { return flag("--no-samples", "Keep no raw samples in the result"); }

SettingSpec placements_setting() {
  SettingSpec s = integer("--placements", "1", "placements",
                          "Code placements 0..N-1 of the timed kernels (16-byte steps), spread over the " +
                              std::to_string(kPlacements) + " built",
                          1, kPlacements);
  s.sets_values = false;  // a count: the placements are spread over the built ones
  return s;
}

SettingSpec iters_setting() {
  return integer("--iters", "10000", "iterations", "Work per path: loop iterations of the work body", 1, 100000000);
}

SettingSpec map_setting() {
  SettingSpec s = text("--map", "modulo", "Lane-to-path map: modulo|contiguous|permuted|unbalanced");
  s.parse = [](const std::string& t) { return json(lane_map_name(parse_lane_map(t))); };
  return s;
}

SettingSpec body_setting() {
  SettingSpec s = text("--body", "fma_chain", "Work body: fma_chain|fma_indep|int_alu|sfu|mem_divergent");
  s.parse = [](const std::string& t) { return json(body_name(parse_body(t))); };
  return s;
}

SettingSpec seed_setting() {
  SettingSpec s = integer("--seed", "20260729", "", "Seed of the random lane permutation map (0..2^64-1)", 0,
                          18446744073709551615.0);
  // A whole number 0..2^64-1, digits only (a generic parser would wrap "-1" into 2^64-1).
  s.parse = [](const std::string& t) {
    const bool digits = !t.empty() && t.size() <= 20 && t.find_first_not_of("0123456789") == std::string::npos;
    errno = 0;
    const unsigned long long v = digits ? std::strtoull(t.c_str(), nullptr, 10) : 0;
    if (!digits || errno == ERANGE)
      throw UsageError("--seed: '" + t + "' is not a whole number in 0..18446744073709551615");
    return json(static_cast<std::uint64_t>(v));
  };
  return s;
}

SettingSpec paths_setting() {
  SettingSpec s{"--k", SettingType::list, "1-32", "paths",
                "Values of k (divergent paths): a range 1-32 or a list 1,2,4,8,16,32"};
  s.parse = [](const std::string& t) { return json(parse_k_list(t)); };
  return shared(s);
}

SettingSpec iterations_setting() {
  SettingSpec s{"--n", SettingType::list, "", "iterations per path",
                "Iterations per path: a list, e.g. 0,1000,3000,10000"};
  s.parse = [](const std::string& t) { return json(parse_n_list(t)); };
  return shared(s);
}

const std::vector<SettingSpec>& shared_settings() {
  static const std::vector<SettingSpec> v = [] {
    std::vector<SettingSpec> all = harness_settings();
    for (const SettingSpec& s : {reps_setting(), warmup_setting(), sampling_setting(), no_samples_setting(),
                                 placements_setting(), iters_setting(), map_setting(), body_setting(), seed_setting(),
                                 paths_setting(), iterations_setting()})
      all.push_back(s);
    return all;
  }();
  return v;
}

std::vector<SettingSpec> timing_settings() {
  return {reps_setting(), warmup_setting(), sampling_setting(), no_samples_setting()};
}

std::vector<SettingSpec> joined(std::initializer_list<std::vector<SettingSpec>> parts) {
  std::vector<SettingSpec> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

std::vector<SettingSpec> work_settings() { return {body_setting(), map_setting(), iters_setting(), seed_setting()}; }

}  // namespace divbench
