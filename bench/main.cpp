// divbench: what does warp divergence cost on this GPU, and what does the compiler emit for it?
//
//   divbench --sweep k [--k 1-32] [--reps 201] [--out results/]     dynamic experiments (GPU)
//   divbench --probe lock | --all | --list
//   divbench sass FILE... | flip ...                                 static commands (bench/commands/)
//
// Google Benchmark flags (--benchmark_filter, --benchmark_list_tests, --benchmark_out, ...) pass
// through to the harness underneath.
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "divbench/build_info.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "harness/options.hpp"
#include "harness/runner.hpp"

namespace {

std::string join_args(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

// A whole number 0..2^64-1, digits only (CLI11 would wrap "-1" into 2^64-1).
std::uint64_t parse_seed(const std::string& s) {
  const bool digits = !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long v = digits ? std::strtoull(s.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE)
    throw divbench::UsageError("--seed: '" + s + "' is not a whole number in 0..18446744073709551615");
  return v;
}

int fail(int code, const std::string& msg) {
  std::fprintf(stderr, "divbench: error: %s\n", divbench::one_line(msg).c_str());  // a name with a newline: still one line
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace divbench;
  // Google Benchmark's own flags go to the harness; everything else to CLI11.
  std::vector<std::string> gb_args{argv[0]};
  std::vector<std::string> cli_args;
  // Only before a `--`: what follows it (attribute's PROGRAM ARGS) is passed on untouched.
  bool after_dashes = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") after_dashes = true;
    (!after_dashes && a.rfind("--benchmark_", 0) == 0 ? gb_args : cli_args).push_back(a);
  }

  RunOptions opts;
  opts.command_line = join_args(argc, argv);
  CLI::App app{"divbench: the cost of warp divergence on this GPU, and what the compiler emits for it", "divbench"};
  app.set_version_flag("--version", std::string("divbench ") + build::version);
  app.footer(
      "Google Benchmark flags (--benchmark_filter=REGEX, --benchmark_list_tests, --benchmark_out=FILE, ...)\n"
      "are passed to the harness. Exit codes: 0 ok, 1 run failed, 2 bad input, 3 no CUDA GPU, 4 measured but not\n"
      "trustworthy (a disturbed point or an unphysical fit; the result is written, marked), 130/143 interrupted.");
  std::string k_spec, n_spec;
  auto* sweep = app.add_option("--sweep", opts.sweep, "Run a sweep experiment (see --list), e.g. k");
  auto* probe = app.add_option("--probe", opts.probe, "Run a probe experiment (see --list), e.g. lock");
  auto* all = app.add_flag("--all", opts.all, "Run every dynamic experiment (the whole reproduction)");
  auto* list = app.add_flag("--list", opts.list, "List the experiments and exit");
  sweep->excludes(probe)->excludes(all)->excludes(list);
  probe->excludes(all)->excludes(list);
  all->excludes(list);
  app.add_option("--k", k_spec, "Values of k: a range 1-32 or a list 1,2,4,8,16,32 (default 1-32)");
  app.add_option("--n", n_spec, "Iterations per path of the cost sweep: a list, e.g. 0,1000,3000,10000");
  app.add_option("--reps", opts.reps,
                 "Timed samples per point, one warp's region each (single: one launch each; warp-per-sm: "
                 "ceil(reps/SMs) launches; occupancy: launches; probes: checked launches, capped per probe)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--warmup", opts.warmup, "Warm-up launches per point, not timed (default: 1 with warp-per-sm, 3 otherwise)")->check(CLI::Range(0, 100000));
  app.add_option("--sampling", opts.sampling,
                 "warp-per-sm (one warp on every SM per launch) or single (one warp per launch); default per body")
      ->check(CLI::IsMember({"warp-per-sm", "single"}));
  app.add_option("--placements", opts.placements, "Code placements 0..N-1 of the timed kernels (16-byte steps)")
      ->check(CLI::Range(1, 1000000));
  app.add_flag("--no-samples", [&opts](std::int64_t) { opts.samples = false; }, "Keep no raw samples in the result");
  app.add_option("--iters", opts.iters, "Work per path: loop iterations of the work body")->check(CLI::Range(1, 100000000));
  app.add_option("--map", opts.map, "Lane-to-path map: modulo|contiguous|permuted|unbalanced");
  app.add_option("--body", opts.body, "Work body: fma_chain|fma_indep|int_alu|sfu|mem_divergent");
  app.add_option("--device", opts.device, "GPU index, or 'all' for one result per GPU of the host");
  app.add_option("--out", opts.out, "Write results: a FILE (one result) or a DIR (DIR/ is created if missing)");
  app.add_option("--format", opts.format, "Console output: console|json|csv")
      ->check(CLI::IsMember({"console", "json", "csv"}));
  app.add_flag("--quiet", opts.quiet, "No progress or tables; errors only");
  app.add_flag("--metrics", opts.metrics, "Also read the efficiency counters through CUPTI (one extra launch per point)");
  std::string seed_spec;
  app.add_option("--seed", seed_spec, "Seed of the random lane permutation map (0..2^64-1)");
  app.add_option("--max-attempts", opts.max_attempts,
                 "Measurements of a point judged disturbed (co-tenant, noise, throttling) before it is kept as "
                 "disturbed (default 3)")
      ->check(CLI::Range(1, 100));
  app.add_option("--noise-factor", opts.noise_factor,
                 "Allowed max-min of a point's samples, as a multiple of the quiet level of its class "
                 "(data/noise_criterion.json; default its factor)")
      ->check(CLI::Range(1.0, 1e6));
  app.add_option("--loop-cost", opts.loop_cost,
                 "Loop-cost constants (divbench.loop_cost/1) for the cost sweep's a_predicted (default: the committed "
                 "results/h200/loop_cost.json, found from the executable)");

  list->excludes(app.get_option("--out"));  // --list writes nothing: an --out with it would be silently ignored
  std::vector<std::pair<CLI::App*, std::function<std::function<int()>(CLI::App&)>>> subs;
  for (auto& c : cli::command_registry())
    if (c.parent.empty()) subs.emplace_back(app.add_subcommand(c.name, c.help), c.setup);
  // A command's own subcommands (`attribute diff`): first in `subs`, so that a parsed child runs, not its parent.
  for (auto& c : cli::command_registry())
    if (!c.parent.empty()) subs.insert(subs.begin(), {app.get_subcommand(c.parent)->add_subcommand(c.name, c.help), c.setup});
  std::vector<std::function<int()>> runners(subs.size());
  for (std::size_t i = 0; i < subs.size(); ++i) runners[i] = subs[i].second(*subs[i].first);
  app.require_subcommand(0, 1);

  try {
    std::vector<std::string> rev(cli_args.rbegin(), cli_args.rend());
    app.parse(rev);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(kExitUsage, e.what());
  }

  try {
    for (std::size_t i = 0; i < subs.size(); ++i)
      if (subs[i].first->parsed()) {
        if (gb_args.size() > 1)  // only the sweeps and probes run through Google Benchmark
          throw UsageError(gb_args[1] + ": Google Benchmark flags apply to --sweep, --probe and --all, not to " +
                           subs[i].first->get_name());
        return runners[i]();
      }
    for (const CLI::Option* o : app.get_options())
      if (o->count() > 0)
        for (const auto& n : o->get_lnames()) opts.given.insert("--" + n);
    if (opts.has("--k")) opts.ks = parse_k_list(k_spec);
    if (opts.has("--n")) opts.ns = parse_n_list(n_spec);
    if (opts.has("--seed")) opts.seed = parse_seed(seed_spec);
    if (opts.has("--noise-factor") && !(std::isfinite(opts.noise_factor) && opts.noise_factor >= 1))
      throw UsageError("--noise-factor: expected a finite number >= 1 (a multiple of the quiet noise level)");
    if (!opts.list && opts.sweep.empty() && opts.probe.empty() && !opts.all)
      return fail(kExitUsage, "nothing to do: give --sweep NAME, --probe NAME, --all, --list or a command (--help)");
    return run_dynamic(opts, gb_args);
  } catch (const UsageError& e) {
    return fail(kExitUsage, e.what());
  } catch (const NoDeviceError& e) {
    return fail(kExitNoDevice, e.what());
  } catch (const std::exception& e) {
    return fail(kExitFailure, e.what());
  }
}
