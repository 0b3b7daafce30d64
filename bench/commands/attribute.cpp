// divbench attribute: cycles lost to divergence, per branch, in any CUDA program (docs/attribute.md).
//   attribute [--kernel REGEX] [--out F.json] [--report F.md] -- PROGRAM ARGS...
//       runs PROGRAM with the CUPTI injection library (SASS metrics per instruction, one process, no
//       replay), joins the counts with the SASS of the modules it loaded, and ranks the divergent
//       branches by estimated cycles lost; PROGRAM's output passes through, its exit code is ours.
//   attribute --static [--json] [--kernel REGEX] FILE...
//       the branch table of any program, object or cubin from the binary alone (no GPU).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cli/command.hpp"
#include "cli/nvdisasm_option.hpp"
#include "divbench/attribute/attribution.hpp"
#include "divbench/attribute/html.hpp"
#include "divbench/core/process.hpp"
#include "divbench/attribute/launch.hpp"
#include "divbench/attribute/report.hpp"
#include "divbench/attribute/run.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/cupti/metrics.hpp"
#include "divbench/model/kernel_facts.hpp"
#include "divbench/model/loop_cost.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace {

using namespace divbench;
namespace fs = std::filesystem;

struct AttributeOptions {
  std::vector<std::string> args;  // FILE... with --static, else PROGRAM ARGS...
  // What the run takes, filled by the options directly (kernel, constants, memory, call_path, nvdisasm,
  // save_counts, from_counts, jobs, repeat, timeout_s, calibrate, pc_sampling_buffer_mib, one_kernel_per_run);
  // the rest (argv, launches, pc_sampling, progress, CUPTI) is set from the options below in run_program.
  attribute::Request q;
  std::string out, report, html;
  std::size_t top = 20;
  std::string launches = "all";  // --launches N|all
  bool static_only = false, json_out = false, quiet = false;
  bool no_pc_sampling = false;
};

void check_outputs(const AttributeOptions& o, const std::vector<std::string>& inputs) {
  // --save-counts DIR is filled before --out and --report are written: neither may be DIR or inside it.
  if (!o.q.save_counts.empty()) {
    std::error_code ec;
    const fs::path dir = fs::weakly_canonical(fs::absolute(o.q.save_counts), ec);
    for (const auto& [opt, path] : {std::pair{"--out", o.out}, {"--report", o.report}, {"--html", o.html}}) {
      if (path.empty() || ec) continue;
      std::error_code pec;
      const fs::path p = fs::weakly_canonical(fs::absolute(path), pec);
      if (pec) continue;
      const auto rel = p.lexically_relative(dir);
      if (!rel.empty() && *rel.begin() != "..")
        throw UsageError(std::string(opt) + " " + one_line(path) + " is inside the --save-counts folder " +
                         one_line(o.q.save_counts) + ": give a file outside it");
    }
  }
  for (const auto& [opt, path] : {std::pair{"--out", o.out}, {"--report", o.report}, {"--html", o.html}}) {
    if (path.empty()) continue;
    check_output(opt, path, inputs);
    std::string why;
    if (!path_is_writable(path, &why)) throw UsageError(std::string(opt) + ": " + why);
  }
  const std::pair<const char*, std::string> outs[] = {{"--out", o.out}, {"--report", o.report}, {"--html", o.html}};
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = i + 1; j < 3; ++j)
      if (!outs[i].second.empty() && !outs[j].second.empty() &&
          (outs[i].second == outs[j].second || same_file(outs[i].second, outs[j].second)))
        throw UsageError(std::string(outs[i].first) + " and " + outs[j].first + " name the same file: " + one_line(outs[i].second));
}

// Every file `divbench attribute` (a run or --from-counts) reads, as far as it can be known before any
// run: the program, the constants in use, nvdisasm, divbench itself, the injection and CUPTI libraries,
// and every file of the --from-counts recording (its counts, cubins and PC samples). A tool that cannot
// be found is left out here: the run refuses it with its own line.
std::vector<std::string> run_inputs(const AttributeOptions& o, const attribute::Request& q) {
  std::vector<std::string> inputs;
  if (!q.argv.empty()) inputs.push_back(attribute::resolve_program(q.argv[0]));
  const std::string constants = o.q.constants.empty() ? model::default_constants_path(own_executable_dir()) : o.q.constants;
  inputs.push_back(constants);
  if (const std::string m = o.q.memory.empty() ? attribute::default_memory_path(constants) : o.q.memory; !m.empty() && m != "none")
    inputs.push_back(m);
  if (const std::string c = o.q.call_path.empty() ? attribute::default_call_path_path(constants) : o.q.call_path;
      !c.empty() && c != "none")
    inputs.push_back(c);
  const auto found = [&](auto&& find) {
    try {
      inputs.push_back(find());
    } catch (const UsageError&) {
    }
  };
  found([&] { return sass::find_nvdisasm(o.q.nvdisasm); });
  if (const std::string self = own_executable(); !self.empty()) inputs.push_back(self);
  std::error_code ec;
  if (o.q.from_counts.empty()) {
    found([] { return attribute::find_inject_library(); });
    if (const char* e = std::getenv("DIVBENCH_PCSAMPLE_LIB"); e && *e) inputs.push_back(e);
    inputs.push_back(own_executable_dir() + "/libdivbench_pcsample.so");
    inputs.push_back(own_executable_dir() + "/lib/libdivbench_pcsample.so");
    inputs.push_back(installed_lib_dir(own_executable_dir()) + "/libdivbench_pcsample.so");
    if (const char* e = std::getenv("DIVBENCH_CUPTI_LIB"); e && *e) inputs.push_back(e);
  } else {
    for (fs::recursive_directory_iterator it(o.q.from_counts, ec), end; !ec && it != end; it.increment(ec))
      if (!it->is_directory(ec)) inputs.push_back(it->path().string());
  }
  return inputs;
}

int run_static(const AttributeOptions& o) {
  if (o.args.empty()) throw UsageError("attribute --static: give at least one program, object or cubin");
  if (!o.report.empty()) throw UsageError("attribute --static: --report belongs to a run (the static table has no counts)");
  if (!o.html.empty()) throw UsageError("attribute --static: --html belongs to a run (the source view shows counts)");
  const NamePattern re = attribute::kernel_regex(o.q.kernel);
  std::vector<std::string> inputs = o.args;  // the files, nvdisasm and divbench itself
  try {
    inputs.push_back(sass::find_nvdisasm(o.q.nvdisasm));
  } catch (const UsageError&) {
  }
  if (const std::string self = own_executable(); !self.empty()) inputs.push_back(self);
  check_outputs(o, inputs);
  for (const auto& f : o.args) sass::inspect_file(f);
  const std::string nvdisasm = sass::find_nvdisasm(o.q.nvdisasm);
  TempDir tmp;
  sass::DisassembleOptions dopt;
  dopt.line_info = true;
  std::vector<attribute::FunctionBranches> tables;
  for (const auto& f : o.args)
    for (const auto& cubin : sass::load_cubins(f, nvdisasm, tmp, dopt)) {
      attribute::check_code_symbols(cubin.path, cubin.path == f ? f : f + " (its cubin for sm_" + std::to_string(cubin.sm) + ")");
      const auto analysis = sass::analyze(cubin);
      for (const auto& fa : analysis.functions)
        if (attribute::kernel_matches(re, fa.function->name)) tables.push_back(attribute::branch_table(fa, cubin.sm, cubin.source_files));
    }
  if (tables.empty()) throw UsageError("attribute --static: no kernel matches --kernel " + one_line(o.q.kernel));
  json doc = attribute::static_document(tables);
  if (!o.out.empty()) write_json_atomic(o.out, doc);
  if (o.json_out) std::cout << doc.dump(1) << "\n";
  else if (!o.quiet) std::cout << attribute::static_console(tables);
  return kExitOk;
}

int run_program(const AttributeOptions& o) {
  if (o.json_out) throw UsageError("attribute: --json belongs to --static (a run writes its JSON with --out)");
  attribute::Request q = o.q;
  q.argv = o.args;
  if (o.launches != "all") {
    std::size_t used = 0;
    unsigned long long n = 0;
    try {
      n = std::stoull(o.launches, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != o.launches.size() || n == 0 || n > 1000000 || o.launches[0] == '-')
      throw UsageError("--launches: '" + one_line(o.launches) + "' is not all or a number of launches 1..1000000");
    if (!o.q.from_counts.empty()) throw UsageError("--launches belongs to a run (a recording keeps how it was counted)");
    if (o.q.repeat > 1) throw UsageError("--launches with --repeat 2: the comparison of two runs needs every launch counted");
    q.launches = n;
  }
  q.pc_sampling = !o.no_pc_sampling;
  // Progress only for a person watching (a terminal), so that a refusal is one line on stderr.
  q.progress = !o.quiet && ::isatty(2);
  attribute::check_request(q);
  check_outputs(o, run_inputs(o, q));
  if (o.q.from_counts.empty()) {
    std::string why;
    std::tie(q.cupti_path, q.cupti_version) = cupti_for_programs(&why);
    if (q.cupti_path.empty()) throw UsageError("attribute: " + why + "; set DIVBENCH_CUPTI_LIB to libcupti.so");
  }
  attribute::Outcome r;
  try {
    r = attribute::run(q);
  } catch (const attribute::Interrupted& i) {
    return 128 + i.signal;  // the program ended on the signal; nothing is written
  } catch (const attribute::ProgramFailed& f) {
    std::cerr << "divbench: error: " << f.why << "\n";  // the program failed: its exit code is ours
    return f.exit_code;
  }
  if (!o.out.empty()) write_json_atomic(o.out, r.document);
  if (!o.report.empty()) write_text_atomic(o.report, attribute::markdown_report(r.kernels, r.document));
  if (!o.html.empty()) write_text_atomic(o.html, attribute::html_view(r.kernels, r.functions, r.sources, r.document));
  if (!o.quiet) {
    std::cerr << attribute::ranked_table(r.kernels, o.top);
    if (!o.args.empty())
      std::cerr << "divbench attribute: " << r.runs << " run(s) of " << one_line(o.args[0]) << " in " << r.runs_wall_s
                << " s (exit code " << r.exit_code << "; "
                << r.document["collection"]["method"].get<std::string>() << ")\n";
    if (r.dropped_records) std::cerr << "divbench attribute: WARNING " << r.dropped_records << " records dropped by CUPTI\n";
  }
  return r.exit_code;
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
    sub.add_option("--kernel", o->q.kernel, "Only kernels whose mangled or demangled name matches REGEX");
    sub.add_option("--out", o->out, "Write the JSON result to FILE (atomically)");
    sub.add_option("--report", o->report, "Write the markdown report to FILE");
    sub.add_option("--html", o->html, "Write the source view to FILE: one self-contained HTML page (source, SASS, heat)");
    sub.add_flag("--calibrate", o->q.calibrate,
                 "Fit the cost model's constants on this GPU first (a short cost sweep; automatic when the "
                 "constants come from another architecture)");
    sub.add_option("--constants", o->q.constants, "Loop-cost constants (divbench.loop_cost/1; default: the committed H200 fit)");
    sub.add_option("--memory", o->q.memory,
                   "A --sweep memory result: a global load's pass against its sectors per memory level (the memory rule, "
                   "docs/attribute.md step 6); default: the constants' memory_levels, else memory.json beside the "
                   "constants; 'none': no memory rule");
    sub.add_option("--call-path", o->q.call_path,
                   "The call-path calibration's result (divbench.call_path/1): the cycles of a call's round trip and "
                   "of an indirect call's extra path (docs/attribute.md step 4); default: call_path.json beside the "
                   "constants; 'none': a call priced by its issue, an indirect call's path as a branch's");
    cli::add_nvdisasm_option(sub, o->q.nvdisasm);
    sub.add_option("--save-counts", o->q.save_counts, "Keep the raw counts and the program's modules in DIR (new or empty)");
    sub.add_option("--from-counts", o->q.from_counts, "Analyse the counts a run kept with --save-counts (no program, no GPU)");
    sub.add_option("--jobs", o->q.jobs, "Runs of the program at once (default 4): the PC-sampling run beside the counting run, and with a CUPTI "
                                         "before 13.4 one kernel instrumented in each; 1: one run at a time")
        ->check(CLI::Range(1, 64));
    sub.add_option("--top", o->top, "Rows of the ranked console table")->check(CLI::Range(1, 100000));
    sub.add_flag("--quiet", o->quiet, "No console table or progress");
    sub.add_option("--repeat", o->q.repeat,
                   "2: run the instrumented program twice and mark kernels whose counts differ (nondeterministic, "
                   "with the spread; a gate uses it as their tolerance)")
        ->check(CLI::Range(1, 2));
    sub.add_option("--launches", o->launches,
                   "Launch sampling: count the first N launches of each kernel and scale its counts to all its launches "
                   "(the document says which kernels, by how much); all (the default) counts every launch. Saves the "
                   "time of a program that launches its kernels many times; kernels whose launches differ are estimated")
        ->type_name("N|all");
    sub.add_option("--timeout", o->q.timeout_s,
                   "Seconds each run of the program may take before it is ended (TERM, KILL 10 s later); 0: no limit "
                   "(default 600)");
    sub.add_flag("--no-pc-sampling", o->no_pc_sampling,
                 "No PC-sampling run: waits on memory are not measured (the estimate of such regions is a lower bound)");
    sub.add_option("--pc-sampling-buffer", o->q.pc_sampling_buffer_mib,
                   "MiB of CUPTI's device buffer for the PC-sampling run (default 32: a larger one makes every launch "
                   "slower; take more, e.g. 512, when attribute warns that samples were lost)")
        ->check(CLI::Range(1, 4096));
    sub.add_flag("--one-kernel-per-run", o->q.one_kernel_per_run,
                 "Instrument one kernel per program run (the CUPTI 13.0 way) even where CUPTI can do all in one");
    return [o] { return o->static_only ? run_static(*o) : run_program(*o); };
  };
  return c;
}

}  // namespace

DIVBENCH_REGISTER_COMMAND(attribute_command);
