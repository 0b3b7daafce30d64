// divbench attribute: cycles lost to divergence, per branch, in any CUDA program (docs/attribute.md).
//   attribute [--kernel REGEX] [--out F.json] [--report F.md] -- PROGRAM ARGS...
//       runs PROGRAM with the CUPTI injection library (SASS metrics per instruction, one process, no
//       replay), joins the counts with the SASS of the modules it loaded, and ranks the divergent
//       branches by estimated cycles lost; PROGRAM's output passes through, its exit code is ours.
//   attribute --static [--json] [--kernel REGEX] FILE...
//       the branch table of any program, object or cubin from the binary alone (no GPU).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <set>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "divbench/attribute/attribution.hpp"
#include "divbench/attribute/launch.hpp"
#include "divbench/attribute/report.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/cubin/elf.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/process.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/core/provenance.hpp"
#include "divbench/cupti/metrics.hpp"
#include "divbench/model/issue_cost.hpp"
#include "divbench/model/loop_cost.hpp"
#include "divbench/model/kernel_facts.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace {

using namespace divbench;
namespace fs = std::filesystem;

struct AttributeOptions {
  std::vector<std::string> args;  // FILE... with --static, else PROGRAM ARGS...
  std::string kernel = ".";
  std::string out, report, constants, nvdisasm;
  std::string save_counts, from_counts;  // keep the raw counts and modules / analyse recorded ones
  std::size_t top = 20;
  int jobs = 4;
  bool static_only = false, json_out = false, quiet = false, calibrate = false;
};

std::regex kernel_regex(const std::string& r) {
  try {
    return std::regex(r);
  } catch (const std::regex_error& e) {
    throw UsageError("--kernel: not a regular expression: " + one_line(r) + " (" + e.what() + ")");
  }
}

bool matches(const std::regex& re, const std::string& mangled) {
  return std::regex_search(mangled, re) || std::regex_search(model::demangle(mangled), re);
}

void check_outputs(const AttributeOptions& o, const std::vector<std::string>& inputs) {
  for (const auto& [opt, path] : {std::pair{"--out", o.out}, {"--report", o.report}}) {
    if (path.empty()) continue;
    check_output(opt, path, inputs);
    std::string why;
    if (!path_is_writable(path, &why)) throw UsageError(std::string(opt) + ": " + why);
  }
  if (!o.out.empty() && !o.report.empty() && (o.out == o.report || same_file(o.out, o.report)))
    throw UsageError("--out and --report name the same file: " + one_line(o.out));
}

int run_static(const AttributeOptions& o) {
  if (o.args.empty()) throw UsageError("attribute --static: give at least one program, object or cubin");
  if (!o.report.empty()) throw UsageError("attribute --static: --report belongs to a run (the static table has no counts)");
  const std::regex re = kernel_regex(o.kernel);
  check_outputs(o, o.args);
  for (const auto& f : o.args) sass::inspect_file(f);
  const std::string nvdisasm = sass::find_nvdisasm(o.nvdisasm);
  TempDir tmp;
  sass::DisassembleOptions dopt;
  dopt.line_info = true;
  std::vector<attribute::FunctionBranches> tables;
  for (const auto& f : o.args)
    for (const auto& cubin : sass::load_cubins(f, nvdisasm, tmp, dopt)) {
      const auto analysis = sass::analyze(cubin);
      for (const auto& fa : analysis.functions)
        if (matches(re, fa.function->name)) tables.push_back(attribute::branch_table(fa, cubin.sm, cubin.source_files));
    }
  if (tables.empty()) throw UsageError("attribute --static: no kernel matches --kernel " + one_line(o.kernel));
  json doc = attribute::static_document(tables);
  if (!o.out.empty()) write_json_atomic(o.out, doc);
  if (o.json_out) std::cout << doc.dump(1) << "\n";
  else if (!o.quiet) std::cout << attribute::static_console(tables);
  return kExitOk;
}

// Every document a recorded run left under `dir` (--save-counts): counts-*.json.
attribute::RunCounts read_recorded(const std::string& dir) {
  if (!fs::is_directory(dir)) throw UsageError("--from-counts: not a directory: " + one_line(dir));
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (e.is_regular_file() && n.rfind("counts-", 0) == 0 && e.path().extension() == ".json")
      files.push_back(e.path().string());
  }
  if (files.empty()) throw UsageError("--from-counts: no counts-*.json under " + one_line(dir));
  std::sort(files.begin(), files.end());
  attribute::RunCounts all;
  for (const auto& f : files) merge_counts(all, attribute::read_counts(f));
  return all;
}

// "9.0" -> 90; 0 when unknown.
int sm_of_cc(const std::string& cc) {
  const auto dot = cc.find('.');
  if (dot == std::string::npos || dot == 0) return 0;
  try {
    return std::stoi(cc.substr(0, dot)) * 10 + std::stoi(cc.substr(dot + 1));
  } catch (const std::exception&) {
    return 0;
  }
}

// The calibration: `divbench --sweep cost` on a small grid (k 1,2; n 0,1000; one placement; every
// body) and `divbench kernels fit` on it with this binary's kernel facts, in `dir`. Returns
// {"command", "cost_exit_code", "trustworthy", "wall_s", "constants" (the file)}; UsageError when a
// step fails.
json calibrate(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string facts = model::executable_dir() + "/kernel_facts.json";
  if (!fs::is_regular_file(facts))
    throw UsageError("attribute: calibration needs " + facts + " (the build writes it; nvdisasm was missing?)");
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> sweep = {self, "--sweep", "cost", "--k", "1,2", "--n", "0,1000", "--placements", "1",
                                          "--no-samples", "--quiet", "--out", dir + "/cost.json"};
  const ProcessResult r = run_process(sweep);
  if (r.exit_code != 0 && r.exit_code != 4)
    throw UsageError("attribute: the calibration sweep failed (exit " + std::to_string(r.exit_code) + "): " +
                     one_line(r.err.substr(0, r.err.find('\n'))));
  const ProcessResult f = run_process({self, "kernels", "fit", "--cost", dir + "/cost.json", "--facts", facts, "--out",
                                       dir + "/loop_cost.json"});
  if (f.exit_code != 0)
    throw UsageError("attribute: the calibration fit failed: " + one_line(f.err.substr(0, f.err.find('\n'))));
  std::string command;
  for (std::size_t i = 1; i < sweep.size() - 2; ++i) command += (i > 1 ? " " : "") + sweep[i];
  return json{{"command", "divbench " + command + " && divbench kernels fit"},
              {"cost_exit_code", r.exit_code},
              {"trustworthy", r.exit_code == 0},
              {"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()},
              {"constants", dir + "/loop_cost.json"}};
}

// The ELF symbol indices of `names` in the cubin at `path` (nvdisasm -fun), or none (disassemble
// everything) when the cubin has other than one symbol table or a name is not in it.
std::vector<std::size_t> function_symbols(const std::string& path, const std::vector<std::string>& names) {
  try {
    const cubin::CubinFile f = cubin::CubinFile::load(path);
    int symtabs = 0;
    for (const auto& s : f.sections()) symtabs += s.type == cubin::kShtSymtab;
    if (symtabs != 1) return {};
    std::vector<std::size_t> out;
    for (const auto& n : names) {
      std::size_t i = 0;
      while (i < f.symbols().size() && !(f.symbols()[i].name == n && f.symbols()[i].type == 2)) ++i;
      if (i == f.symbols().size()) return {};
      out.push_back(i);
    }
    return out;
  } catch (const std::exception&) {
    return {};
  }
}

// The analysed module of one CUPTI cubin CRC, disassembled once.
struct Module {
  sass::Cubin cubin;
  std::map<std::string, std::unique_ptr<sass::FunctionAnalysis>> analysed;  // only the functions that ran
};

int run_program(const AttributeOptions& o) {
  if (o.args.empty() && o.from_counts.empty())
    throw UsageError("attribute: give the program to run after --, e.g. divbench attribute -- ./app");
  if (!o.args.empty() && !o.from_counts.empty()) throw UsageError("attribute: --from-counts analyses a recorded run; give no program");
  if (o.calibrate && !o.from_counts.empty()) throw UsageError("attribute: --calibrate belongs to a run on a GPU, not to --from-counts");
  if (o.json_out) throw UsageError("attribute: --json belongs to --static (a run writes its JSON with --out)");
  const std::regex re = kernel_regex(o.kernel);
  std::vector<std::string> argv = o.args;
  if (!argv.empty()) argv[0] = attribute::resolve_program(argv[0]);
  std::vector<std::string> inputs;
  if (!argv.empty()) inputs.push_back(argv[0]);
  if (!o.save_counts.empty()) {
    if (fs::exists(o.save_counts) && (!fs::is_directory(o.save_counts) || !fs::is_empty(o.save_counts)))
      throw UsageError("--save-counts: " + one_line(o.save_counts) + " exists and is not an empty directory");
    if (!o.from_counts.empty()) throw UsageError("--save-counts belongs to a run, not to --from-counts");
  }
  if (!o.constants.empty()) inputs.push_back(o.constants);
  check_outputs(o, inputs);
  std::string used, why;
  auto constants = model::load_constants(o.constants, used, why);
  if (!constants) throw UsageError("attribute: no loop-cost constants (" + why + "); give --constants FILE (divbench.loop_cost/1)");
  const std::string nvdisasm = sass::find_nvdisasm(o.nvdisasm);
  std::string inject, cupti_dir;
  if (o.from_counts.empty()) {
    inject = attribute::find_inject_library();
    const std::string cupti = cupti_library(&why);
    if (cupti.empty()) throw UsageError("attribute: " + why + "; set DIVBENCH_CUPTI_LIB to libcupti.so");
    cupti_dir = cupti.find('/') == std::string::npos ? "" : fs::path(cupti).parent_path().string();
  }

  TempDir tmp;
  const auto t_start = std::chrono::steady_clock::now();
  double wall_total = 0;  // the runs, from the first start to the last end
  attribute::RunCounts counts;
  attribute::ProgramRun run;
  json runs = json::array();
  if (!o.from_counts.empty()) {
    counts = read_recorded(o.from_counts);
  } else {
    // 1. Discovery: the program as it is (its output passes through): its kernels, its modules, and the
    // counts of the first kernel it launches that --kernel matches (so one kernel asked for is one run).
    // Progress only for a person watching (a terminal), so that a refusal is one line on stderr.
    const bool progress = !o.quiet && ::isatty(2);
    if (progress) std::cerr << "divbench attribute: running " << one_line(argv[0]) << " to find its kernels\n";
    const std::string disc_dir = tmp.path() + "/k0";
    try {
      run = attribute::run_injected({{argv, disc_dir, "", false, o.kernel}}, inject, cupti_dir, 1).front();
    } catch (const attribute::Interrupted& i) {
      return 128 + i.signal;  // the program ended on the signal; nothing is written
    }
    runs.push_back({{"target", "(discovery: the first kernel launched)"}, {"exit_code", run.exit_code}, {"wall_s", run.wall_s}});
    attribute::RunCounts found;
    try {
      found = attribute::collect_counts(disc_dir, run, "counts");
    } catch (const UsageError& e) {
      if (run.exit_code == 0) throw;
      std::cerr << "divbench: error: " << e.what() << "\n";  // the program failed: its exit code is ours
      return run.exit_code;
    }
    std::vector<std::string> targets;
    for (const auto& [name, n] : found.launches)
      if (matches(re, name)) targets.push_back(name);
    if (targets.empty())
      throw UsageError("attribute: no kernel that ran matches --kernel " + one_line(o.kernel) + " (" +
                       std::to_string(found.launches.size()) + " kernel(s) ran)");
    const auto keep_only = [&](attribute::RunCounts& c, const std::function<bool(const std::string&)>& keep) {
      c.functions.erase(std::remove_if(c.functions.begin(), c.functions.end(),
                                       [&](const attribute::FunctionCounts& f) { return !keep(f.name); }),
                        c.functions.end());
    };
    keep_only(found, [&](const std::string& n) { return matches(re, n); });
    counts = found;
    std::set<std::string> done;
    for (const auto& f : found.functions) done.insert(f.name);
    // 2. One more run per kernel not yet counted, that kernel instrumented (CUPTI patches one function
    // per process: src/attribute/inject/inject.cpp), --jobs at a time; their output goes to logs.
    std::vector<attribute::InjectedRun> more;
    for (const auto& t : targets)
      if (!done.count(t)) more.push_back({argv, tmp.path() + "/k" + std::to_string(more.size() + 1), t, true, ""});
    std::vector<attribute::ProgramRun> results;
    try {
      results = attribute::run_injected(more, inject, cupti_dir, o.jobs, [&](std::size_t i) {
        if (progress)
          std::cerr << "divbench attribute: kernel " << i + 1 << "/" << more.size() << ": "
                    << one_line(model::demangle(more[i].target).substr(0, 100)) << "\n";
      });
    } catch (const attribute::Interrupted& i) {
      return 128 + i.signal;
    }
    for (std::size_t i = 0; i < more.size(); ++i) {
      const auto& r = results[i];
      runs.push_back({{"target", more[i].target}, {"exit_code", r.exit_code}, {"wall_s", r.wall_s}});
      if (r.exit_code != run.exit_code)
        std::cerr << "divbench attribute: WARNING the run for " << one_line(model::demangle(more[i].target).substr(0, 80))
                  << " ended with exit code " << r.exit_code << ", the first with " << run.exit_code
                  << ": the program does not repeat itself\n";
      attribute::RunCounts c = attribute::collect_counts(more[i].dir, r, "counts");
      c.launches.clear();  // the discovery run's launch counts stand
      keep_only(c, [&](const std::string& n) { return n == more[i].target; });
      merge_counts(counts, c);
    }
    const auto t_end = std::chrono::steady_clock::now();
    wall_total = std::chrono::duration<double>(t_end - t_start).count();
    if (!o.save_counts.empty()) {
      fs::create_directories(o.save_counts);
      fs::copy(tmp.path(), o.save_counts, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    }
  }

  // This GPU's constants: a one-second calibration (divbench's own cost sweep on a small grid, then the
  // fit) when asked (--calibrate) or when the constants were fitted on another architecture.
  json calibration = nullptr;
  const int device_sm = sm_of_cc(counts.device.value("cc", ""));
  if (o.from_counts.empty() && (o.calibrate || (device_sm && device_sm != constants->sm))) {
    calibration = calibrate(tmp.path() + "/calibration");
    std::string cused, cwhy;
    const auto c = model::load_constants(calibration["constants"].get<std::string>(), cused, cwhy);
    if (!c) throw UsageError("attribute: the calibration's constants cannot be read (" + cwhy + ")");
    constants = c;
    used = "calibration on this GPU (" + calibration.value("command", std::string()) + ")";
    if (!calibration.value("trustworthy", false))
      std::cerr << "divbench attribute: WARNING the calibration sweep was disturbed (exit 4: another process on the "
                   "GPU, throttling or noise); its constants are used and the result says so (cost_model.calibration)\n";
  }

  std::map<std::uint32_t, std::unique_ptr<Module>> modules;
  std::deque<attribute::FunctionBranches> tables;
  std::deque<std::vector<model::IssueCost>> costs;
  std::vector<attribute::KernelAttribution> kernels;
  std::vector<std::string> not_found;
  sass::DisassembleOptions dopt;
  dopt.line_info = true;
  // The functions to analyse, by module: nvdisasm is asked for those alone.
  std::map<std::uint32_t, std::vector<std::string>> wanted;
  for (const auto& fc : counts.functions)
    if (matches(re, fc.name)) wanted[fc.crc].push_back(fc.name);
  for (const auto& fc : counts.functions) {
    if (!matches(re, fc.name)) continue;
    auto mit = modules.find(fc.crc);
    if (mit == modules.end()) {
      const auto cit = counts.cubins.find(fc.crc);
      std::unique_ptr<Module> m;
      if (cit != counts.cubins.end()) {
        m = std::make_unique<Module>();
        sass::DisassembleOptions fopt = dopt;
        fopt.function_symbols = function_symbols(cit->second, wanted[fc.crc]);
        m->cubin = sass::disassemble(cit->second, nvdisasm, fopt);
      }
      mit = modules.emplace(fc.crc, std::move(m)).first;
    }
    Module* m = mit->second.get();
    const sass::FunctionAnalysis* fa = nullptr;
    if (m)
      for (const auto& f : m->cubin.functions)
        if (f.name == fc.name) {
          auto& slot = m->analysed[f.name];
          if (!slot) slot = std::make_unique<sass::FunctionAnalysis>(sass::analyze(f));
          fa = slot.get();
        }
    if (!fa) {
      not_found.push_back(fc.name);
      continue;
    }
    tables.push_back(attribute::branch_table(*fa, m->cubin.sm, m->cubin.source_files));
    costs.push_back(model::issue_costs(*fa->function, *constants));
    kernels.push_back(attribute::attribute_kernel(tables.back(), fc, *fa->function, costs.back()));
  }
  if (kernels.empty()) {
    if (!not_found.empty())
      throw UsageError("attribute: the code of " + one_line(model::demangle(not_found.front())) + " was not among the modules the program loaded");
    throw UsageError("attribute: no recorded kernel matches --kernel " + one_line(o.kernel) + " (" +
                     std::to_string(counts.functions.size()) + " kernel(s) recorded)");
  }

  std::string command;
  for (const auto& a : o.args) command += (command.empty() ? "" : " ") + a;
  double total = 0;
  std::size_t divergent = 0;
  json jk = json::array();
  for (const auto& k : kernels) {
    total += k.cycles_lost;
    for (const auto& b : k.branches) divergent += b.divergent > 0;
    jk.push_back(attribute::to_json(k));
  }
  const int sm = kernels.front().table->sm;
  json cost_model{{"file", used},
                  {"fitted_on", "sm_" + std::to_string(constants->sm)},
                  {"taken_branch_cycles", constants->taken_branch ? json(*constants->taken_branch) : json(nullptr)},
                  {"variable_latency_cycles", constants->variable_latency ? json(*constants->variable_latency) : json(nullptr)},
                  {"summary", "issue cycles per instruction from the control words' stall fields, B per branch, W per "
                              "variable-latency wait (model/issue_cost.hpp); constants from " + used}};
  if (constants->sm != sm)
    cost_model["caveat"] = "constants fitted on sm_" + std::to_string(constants->sm) + ", applied to sm_" + std::to_string(sm);
  if (!calibration.is_null()) {
    calibration.erase("constants");  // a temporary file: its content is here
    cost_model["calibration"] = calibration;
  }
  json doc{{"schema", attribute::kAttributeSchema},
           {"provenance", to_json(make_provenance(this_command_line()))},
           {"program", {{"command", command}, {"exit_code", run.exit_code}, {"signal", run.signal}, {"wall_s", run.wall_s}}},
           {"launches", counts.launches},
           {"device", counts.device},
           {"collection", {{"method", "CUPTI SASS metrics: per-instruction patching, in the program's own process, no "
                                      "kernel replay; one run to find the kernels, then one run per kernel attributed "
                                      "(CUPTI patches one function per process)"},
                           {"runs", runs},
                           {"jobs", o.jobs},
                           {"runs_wall_s", wall_total},
                           {"recorded", o.from_counts.empty() ? json(nullptr) : json(o.from_counts)},
                           {"metrics", counts.metrics},
                           {"dropped_records", counts.dropped_records},
                           {"processes", counts.processes},
                           {"kernels_ran", counts.functions.size()}}},
           {"cost_model", cost_model},
           {"totals", {{"kernels", kernels.size()}, {"divergent_branches", divergent}, {"cycles_lost", total}}},
           {"kernels", jk}};
  if (!not_found.empty()) doc["kernels_without_code"] = not_found;
  if (!o.out.empty()) write_json_atomic(o.out, doc);
  if (!o.report.empty()) write_text_atomic(o.report, attribute::markdown_report(kernels, doc));
  if (!o.quiet) {
    std::cerr << attribute::ranked_table(kernels, o.top);
    if (!argv.empty())
      std::cerr << "divbench attribute: " << runs.size() << " run(s) of " << one_line(argv[0]) << " in " << wall_total
                << " s (the first " << run.wall_s << " s, exit code " << run.exit_code << ")\n";
    if (counts.dropped_records) std::cerr << "divbench attribute: WARNING " << counts.dropped_records << " records dropped by CUPTI\n";
  }
  return run.exit_code;
}

divbench::cli::Command attribute_command() {
  divbench::cli::Command c;
  c.name = "attribute";
  c.help = "Cycles lost to divergence per branch in any CUDA program (-- PROGRAM ARGS), or its static branch table (--static FILE)";
  c.setup = [](CLI::App& sub) -> std::function<int()> {
    auto o = std::make_shared<AttributeOptions>();
    sub.add_option("args", o->args, "PROGRAM ARGS... (after --), or with --static the programs, objects or cubins");
    sub.add_flag("--static", o->static_only, "No run: the branch table from the binary alone");
    sub.add_flag("--json", o->json_out, "--static: the table as JSON on stdout");
    sub.add_option("--kernel", o->kernel, "Only kernels whose mangled or demangled name matches REGEX");
    sub.add_option("--out", o->out, "Write the JSON result to FILE (atomically)");
    sub.add_option("--report", o->report, "Write the markdown report to FILE");
    sub.add_flag("--calibrate", o->calibrate,
                 "Fit the cost model's constants on this GPU first (a short cost sweep; automatic when the "
                 "constants come from another architecture)");
    sub.add_option("--constants", o->constants, "Loop-cost constants (divbench.loop_cost/1; default: the committed H200 fit)");
    sub.add_option("--nvdisasm", o->nvdisasm, "Path of nvdisasm");
    sub.add_option("--save-counts", o->save_counts, "Keep the raw counts and the program's modules in DIR (new or empty)");
    sub.add_option("--from-counts", o->from_counts, "Analyse the counts a run kept with --save-counts (no program, no GPU)");
    sub.add_option("--jobs", o->jobs, "Runs of the program at once, one kernel instrumented in each (default 4)")
        ->check(CLI::Range(1, 64));
    sub.add_option("--top", o->top, "Rows of the ranked console table")->check(CLI::Range(1, 100000));
    sub.add_flag("--quiet", o->quiet, "No console table or progress");
    return [o] { return o->static_only ? run_static(*o) : run_program(*o); };
  };
  return c;
}

}  // namespace

DIVBENCH_REGISTER_COMMAND(attribute_command);
