// divbench: what does warp divergence cost on this GPU, and what does the compiler emit for it?
//
//   divbench --sweep k [--k 1-32] [--reps 201] [--out results/]     dynamic experiments (GPU)
//   divbench --probe lock | --all | --list
//   divbench sass FILE... | flip ...                                 static commands (bench/commands/)
//
// Google Benchmark flags (--benchmark_filter, --benchmark_list_tests, --benchmark_out, ...) pass
// through to the harness underneath.
#include <CLI/CLI.hpp>

#include <map>
#include <set>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "divbench/build_info.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/json_io.hpp"
#include "harness/common_settings.hpp"
#include "harness/experiment.hpp"
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

int fail(int code, const std::string& msg) {
  std::fprintf(stderr, "divbench: error: %s\n", divbench::one_line(msg).c_str());  // a name with a newline: still one line
  return code;
}

}  // namespace

namespace {

// nvbench's value grammar for --axis: "[1,2,4]" is the list 1,2,4 and "[1:8:2]" (or "[1:8]", stride 1) the
// inclusive range 1,3,5,7; anything else is divbench's own ("1-8", "1,2,4", "fma_chain,sfu") and passes as it is.
std::string nvbench_axis_values(const std::string& v, const std::string& spec) {
  if (v.size() < 2 || v.front() != '[' || v.back() != ']') return v;
  const std::string inner = v.substr(1, v.size() - 2);
  if (inner.find(':') == std::string::npos) return inner;
  std::vector<long long> part;
  std::size_t from = 0;
  while (true) {
    const std::size_t colon = inner.find(':', from);
    const std::string t = inner.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
    std::size_t used = 0;
    long long n = 0;
    try {
      n = std::stoll(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (t.empty() || used != t.size())
      throw divbench::UsageError("--axis: '" + spec + "': a range is [START:END] or [START:END:STRIDE] of integers");
    part.push_back(n);
    if (colon == std::string::npos) break;
    from = colon + 1;
  }
  if (part.size() < 2 || part.size() > 3 || (part.size() == 3 && part[2] <= 0) || part[1] < part[0] ||
      (part[1] - part[0]) / (part.size() == 3 ? part[2] : 1) > 100000)
    throw divbench::UsageError("--axis: '" + spec + "': a range is [START:END] or [START:END:STRIDE], START <= END, STRIDE > 0");
  std::string out;
  for (long long x = part[0]; x <= part[1]; x += part.size() == 3 ? part[2] : 1) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
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

  CommandLine cl;
  cl.text = join_args(argc, argv);
  CLI::App app{"divbench: the cost of warp divergence on this GPU, and what the compiler emits for it", "divbench"};
  app.set_version_flag("--version", std::string("divbench ") + build::version);
  app.footer(
      "Google Benchmark flags (--benchmark_filter=REGEX, --benchmark_list_tests, --benchmark_out=FILE, ...)\n"
      "are passed to the harness. Exit codes: 0 ok, 1 run failed, 2 bad input, 3 no CUDA GPU, 4 measured but not\n"
      "trustworthy (a disturbed point or an unphysical fit; the result is written, marked), 130/143 interrupted.");
  // The command line is the declarations (harness/settings.hpp): the harness's settings, then every
  // experiment's, one option per name; the text is kept and parsed by the declaration that reads it.
  std::map<std::string, std::string> text;
  std::map<std::string, bool> flags;
  std::vector<std::string> axis_specs;
  for (const SettingSpec& s : declared_options()) {
    if (s.option == "--axis") {
      app.add_option("--axis", axis_specs, s.help)->type_name("NAME=VALUES");
    } else if (s.type == SettingType::flag) {
      app.add_flag(s.option, flags[s.option], s.help);
    } else {
      app.add_option(s.option, text[s.option], s.help)->type_name(setting_type_name(s.type) == std::string("list") ? "LIST" : "VALUE");
    }
  }
  auto* sweep = app.get_option("--sweep");
  auto* probe = app.get_option("--probe");
  auto* all = app.get_option("--all");
  auto* list = app.get_option("--list");
  sweep->excludes(probe)->excludes(all)->excludes(list);
  probe->excludes(all)->excludes(list);
  all->excludes(list);
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
    for (const CLI::Option* o : app.get_options()) {
      if (o->count() == 0 || o->get_lnames().empty()) continue;
      const std::string name = "--" + o->get_lnames().front();
      if (name == "--axis") {
        std::map<std::string, std::string> seen;  // an axis given twice: the second would hide the first's typo
        for (const auto& a : axis_specs) {
          const auto eq = a.find('=');
          if (eq == std::string::npos || eq == 0)
            throw UsageError("--axis: '" + a + "' is not NAME=VALUES (e.g. --axis k=1-8)");
          const std::string axis = a.substr(0, eq);
          if (const auto it = seen.find(axis); it != seen.end())
            throw UsageError("--axis " + axis + " given twice (" + it->second + " and " + a + "): one --axis per axis");
          seen.emplace(axis, a);
          cl.axis.emplace_back(axis, nvbench_axis_values(a.substr(eq + 1), a));
        }
      } else if (flags.count(name)) {
        cl.set(name);
      } else if (text.count(name)) {
        cl.set(name, text[name]);
      }
    }
    if (!cl.has("--list") && !cl.has("--sweep") && !cl.has("--probe") && !cl.has("--all"))
      return fail(kExitUsage, "nothing to do: give --sweep NAME, --probe NAME, --all, --list or a command (--help)");
    return run_dynamic(cl, gb_args);
  } catch (const UsageError& e) {
    return fail(kExitUsage, e.what());
  } catch (const NoDeviceError& e) {
    return fail(kExitNoDevice, e.what());
  } catch (const nlohmann::json::exception& e) {
    // A JSON input with a value of the wrong type where no reader named the file and key: still bad input
    // (exit 2), never a failure of divbench's (exit 1).
    return fail(kExitUsage, std::string("a JSON input holds a value divbench cannot read (") + e.what() +
                                "); run with one input at a time to find which");
  } catch (const std::exception& e) {
    return fail(kExitFailure, e.what());
  }
}
