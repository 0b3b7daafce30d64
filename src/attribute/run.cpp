// `divbench attribute` as a library (attribute/run.hpp): the runs of the program, the calibration, the
// disassembly of what ran, the join, the pricing and the document.
#include "divbench/attribute/run.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <atomic>
#include <future>
#include <optional>
#include <thread>
#include <iostream>
#include <mutex>
#include <set>

#include "divbench/attribute/early_cubins.hpp"
#include "divbench/attribute/pcsamples.hpp"
#include "divbench/attribute/document.hpp"
#include "divbench/attribute/price.hpp"
#include "divbench/attribute/report.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/process.hpp"
#include "divbench/core/provenance.hpp"
#include "divbench/cubin/elf.hpp"
#include "divbench/model/issue_cost.hpp"
#include "divbench/model/kernel_facts.hpp"
#include "divbench/model/loop_cost.hpp"
#include "divbench/sass/loops.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace divbench::attribute {

struct Outcome::Module {
  sass::Cubin cubin;
  std::map<std::string, std::unique_ptr<sass::FunctionAnalysis>> analysed;  // only the functions that ran
};

namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kAllKernelsVersion = 130400;  // cupti/metrics.hpp kCuptiAllKernelsVersion

// Every document of one kind a recorded run left under `dir` (--save-counts): PREFIX-*.json.
std::vector<std::string> recorded_files(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (e.is_regular_file() && n.rfind(prefix + "-", 0) == 0 && e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every pcsamples-*.json under `dir` merged (one per process of the program); nullopt when there is none.
std::optional<PcSamples> read_recorded_pcsamples(const std::string& dir) {
  if (!fs::is_directory(dir)) return std::nullopt;
  std::optional<PcSamples> all;
  for (const auto& f : recorded_files(dir, "pcsamples")) {
    if (!all) all = read_pcsamples(f);
    else merge_pcsamples(*all, read_pcsamples(f));
  }
  return all;
}

RunCounts read_recorded(const std::string& dir) {
  if (!fs::is_directory(dir)) throw UsageError("--from-counts: not a directory: " + one_line(dir));
  const auto files = recorded_files(dir, "counts");
  if (files.empty()) throw UsageError("--from-counts: no counts-*.json under " + one_line(dir));
  RunCounts all;
  // A recording of a repeated run (--repeat 2) holds the repeat under repeat/: the first run's counts stand.
  for (const auto& f : files)
    if (f.find("/repeat/") == std::string::npos) merge_counts(all, read_counts(f));
  return all;
}

// The calibration: `divbench --sweep cost` on a small grid (k 1,2; n 0,1000; one placement; every
// body), the memory probe (`--sweep memory`), and `divbench kernels fit --memory` on them with this
// binary's kernel facts, in `dir`. Returns {"command", "cost_exit_code", "memory_exit_code",
// "trustworthy", "wall_s", "constants" (the file)}; UsageError when a step fails.
json calibrate(const std::string& dir) {
  fs::create_directories(dir);
  const std::string self = own_executable();
  if (self.empty()) throw UsageError("attribute: the calibration runs divbench itself, and /proc/self/exe cannot be read");
  const std::string facts = model::kernel_facts_path(own_executable_dir());
  if (!fs::is_regular_file(facts))
    throw UsageError("attribute: calibration needs " + facts + " (the build writes it; nvdisasm was missing?)");
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> sweep = {self, "--sweep", "cost", "--k", "1,2", "--n", "0,1000", "--placements", "1",
                                          "--no-samples", "--quiet", "--out", dir + "/cost.json"};
  const ProcessResult r = run_process(sweep);
  if (r.exit_code != 0 && r.exit_code != 4)
    throw UsageError("attribute: the calibration sweep failed (exit " + std::to_string(r.exit_code) + "): " +
                     one_line(r.err.substr(0, r.err.find('\n'))));
  // The memory probe (the memory rule's curves for this GPU): exit 4 is kept, as for the cost sweep.
  const ProcessResult m = run_process({self, "--sweep", "memory", "--quiet", "--no-samples", "--out", dir + "/memory.json"});
  if (m.exit_code != 0 && m.exit_code != 4)
    throw UsageError("attribute: the calibration's memory probe failed (exit " + std::to_string(m.exit_code) + "): " +
                     one_line(m.err.substr(0, m.err.find('\n'))));
  const ProcessResult f = run_process({self, "kernels", "fit", "--cost", dir + "/cost.json", "--facts", facts, "--memory",
                                       dir + "/memory.json", "--out", dir + "/loop_cost.json"});
  if (f.exit_code != 0)
    throw UsageError("attribute: the calibration fit failed: " + one_line(f.err.substr(0, f.err.find('\n'))));
  std::string command;
  for (std::size_t i = 1; i < sweep.size() - 2; ++i) command += (i > 1 ? " " : "") + sweep[i];
  return json{{"command", "divbench " + command + " && divbench --sweep memory && divbench kernels fit --memory"},
              {"cost_exit_code", r.exit_code},
              {"memory_exit_code", m.exit_code},
              {"trustworthy", r.exit_code == 0 && m.exit_code == 0},
              {"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()},
              {"constants", dir + "/loop_cost.json"}};
}

// Per function of `names` in the cubin at `path`, the ELF symbol indices nvdisasm -fun needs for it:
// its own and those of the subroutines in its section (a callee reached only through a register is
// code of the kernel's region), with their bytes. Empty (disassemble everything at once) when the
// cubin has other than one symbol table or a name is not in it.
struct SymbolGroup {
  std::vector<std::size_t> symbols;
  std::uint64_t bytes = 0;
};
std::vector<SymbolGroup> function_symbols(const std::string& path, const std::vector<std::string>& names) {
  try {
    const cubin::CubinFile f = cubin::CubinFile::load(path);
    int symtabs = 0;
    for (const auto& s : f.sections()) symtabs += s.type == cubin::kShtSymtab;
    if (symtabs != 1) return {};
    const auto& syms = f.symbols();
    std::vector<SymbolGroup> out;
    for (const auto& n : names) {
      std::size_t i = 0;
      while (i < syms.size() && !(syms[i].name == n && syms[i].type == 2)) ++i;
      if (i == syms.size()) return {};
      SymbolGroup g{{i}, syms[i].size};
      for (std::size_t j = 0; j < syms.size(); ++j)
        if (j != i && syms[j].type == 2 && syms[j].shndx == syms[i].shndx) {
          g.symbols.push_back(j);
          g.bytes += syms[j].size;
        }
      out.push_back(std::move(g));
    }
    return out;
  } catch (const std::exception&) {
    return {};
  }
}

// The functions of `groups` (all of the cubin when empty) disassembled with line info in up to four
// nvdisasm runs side by side, a quarter of the machine's cores each (two processes per run: the JSON
// and the text listing), the groups dealt largest first to the run with the fewest bytes. nvdisasm's
// time per run is mostly a fixed cost per cubin whichever functions -fun names (Thrust/CUB's 1.9 MB
// sm_90 cubin: 0.45 s for one small kernel, 1.0 s for all), so the parts cost little more than one.
// DIVBENCH_NVDISASM_PARTS=N sets the number of runs (the CPU test compares N against one).
sass::Cubin disassemble_functions(const std::string& path, const std::string& nvdisasm,
                                  const std::vector<SymbolGroup>& groups) {
  sass::DisassembleOptions o;
  o.line_info = true;
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  std::size_t parts = std::min<std::size_t>({groups.size(), std::max<std::size_t>(1, cores / 4), 4});
  if (const char* e = std::getenv("DIVBENCH_NVDISASM_PARTS"); e && *e)  // tests: the split on any machine
    parts = std::min<std::size_t>(groups.size(), std::strtoul(e, nullptr, 10));
  if (parts <= 1) {
    for (const auto& g : groups) o.function_symbols.insert(o.function_symbols.end(), g.symbols.begin(), g.symbols.end());
    return sass::disassemble(path, nvdisasm, o);
  }
  std::vector<std::size_t> order(groups.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return groups[a].bytes > groups[b].bytes; });
  std::vector<std::vector<std::size_t>> part_symbols(parts);
  std::vector<std::uint64_t> part_bytes(parts, 0);
  for (std::size_t i : order) {
    const std::size_t p = std::min_element(part_bytes.begin(), part_bytes.end()) - part_bytes.begin();
    part_symbols[p].insert(part_symbols[p].end(), groups[i].symbols.begin(), groups[i].symbols.end());
    part_bytes[p] += groups[i].bytes;
  }
  std::vector<std::future<sass::Cubin>> runs;
  for (auto& syms : part_symbols) {
    sass::DisassembleOptions po = o;
    po.function_symbols = std::move(syms);
    runs.push_back(std::async(std::launch::async, [path, nvdisasm, po] { return sass::disassemble(path, nvdisasm, po); }));
  }
  sass::Cubin c = runs[0].get();
  for (std::size_t i = 1; i < runs.size(); ++i) sass::merge_listing(c, runs[i].get());
  return c;
}

// The kernels of a cubin: function symbols at the start of their own section.
std::vector<std::string> kernel_names(const std::string& path) {
  std::vector<std::string> out;
  try {
    const cubin::CubinFile f = cubin::CubinFile::load(path);
    for (const auto& s : f.symbols())
      if (s.type == 2 && s.value == 0 && s.shndx != 0) out.push_back(s.name);
  } catch (const std::exception&) {
  }
  return out;
}

void keep_only(RunCounts& c, const std::function<bool(const std::string&)>& keep) {
  c.functions.erase(std::remove_if(c.functions.begin(), c.functions.end(),
                                   [&](const FunctionCounts& f) { return !keep(f.name); }),
                    c.functions.end());
}

// Largest relative difference of a function's summed counts between two runs (0: identical).
double count_spread(const FunctionCounts& a, const FunctionCounts& b) {
  double worst = 0;
  const auto rel = [](std::uint64_t x, std::uint64_t y) {
    const double m = std::max<double>(double(x), double(y));
    return m > 0 ? std::fabs(double(x) - double(y)) / m : 0.0;
  };
  std::uint64_t ia = 0, ib = 0, ta = 0, tb = 0, da = 0, db = 0;
  for (const auto& [pc, c] : a.pcs) ia += c.inst, ta += c.thread_inst, da += c.divergent;
  for (const auto& [pc, c] : b.pcs) ib += c.inst, tb += c.thread_inst, db += c.divergent;
  worst = std::max({rel(ia, ib), rel(ta, tb), rel(da, db)});
  if (worst == 0 && a.pcs.size() != b.pcs.size()) worst = 1e-12;  // same sums, other pcs: still not identical
  if (worst == 0)
    for (const auto& [pc, c] : a.pcs) {
      const PcCounts* o = b.at(pc);
      if (!o || o->inst != c.inst || o->thread_inst != c.thread_inst || o->divergent != c.divergent) {
        worst = 1e-12;
        break;
      }
    }
  return worst;
}

}  // namespace

void check_code_symbols(const std::string& cubin_path, const std::string& shown) {
  const cubin::CubinFile f = cubin::CubinFile::load(cubin_path);
  const auto& syms = f.symbols();
  for (const auto& s : f.sections()) {
    if (s.type == cubin::kShtNobits || s.name.rfind(".text.", 0) != 0 || s.name.size() <= 6) continue;
    const std::string fn = s.name.substr(6);
    const bool named = std::any_of(syms.begin(), syms.end(), [&](const cubin::Symbol& y) {
      return y.type == 2 && y.shndx == s.index && y.value == 0 && y.name == fn;
    });
    if (!named)
      throw UsageError(one_line(shown) + ": the symbol table cannot be read: code section " + one_line(s.name) +
                       " has no function symbol " + one_line(fn) + " at its start (a damaged cubin; its kernel would be lost)");
  }
}

NamePattern kernel_regex(const std::string& r) {
  try {
    return NamePattern(r);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--kernel: not a regular expression: " + one_line(r) + " (" + e.what() + ")");
  }
}

bool kernel_matches(const NamePattern& re, const std::string& mangled) {
  return re.search(mangled) || re.search(model::demangle(mangled));
}

std::string default_memory_path(const std::string& constants_path) {
  std::error_code ec;
  const fs::path beside = fs::path(constants_path).parent_path() / "memory.json";
  return constants_path.empty() || !fs::is_regular_file(beside, ec) ? std::string() : beside.string();
}

// The memory levels the run uses (model/memory_cost.hpp): `memory` ("none": no levels, the rule before,
// a control), else the constants' own, else the probe's result beside the constants file.
void apply_memory(const std::string& memory_option, model::CostConstants& c, const std::string& constants_path) {
  if (memory_option == "none") {
    c.memory_levels.clear();
    c.memory_source = nullptr;
    return;
  }
  const std::string memory = !memory_option.empty() ? memory_option
                             : c.memory_levels.empty() ? default_memory_path(constants_path)
                                                       : std::string();
  if (!memory.empty()) model::set_memory_levels(c, memory);
}

std::string default_call_path_path(const std::string& constants_path) {
  std::error_code ec;
  const fs::path beside = fs::path(constants_path).parent_path() / "call_path.json";
  return constants_path.empty() || !fs::is_regular_file(beside, ec) ? std::string() : beside.string();
}

// The measured call costs the run uses (a call's round trip, an indirect call's extra path): `option`
// ("none": not measured, a CALL priced by its issue and an indirect call's path at D_path as before, a
// control), else the call-path calibration's result beside the constants file (fitted on the same GPU as
// they were: a calibration on another one leaves them unmeasured unless --call-path names a file).
void apply_call_path(const std::string& option, model::CostConstants& c, const std::string& constants_path) {
  c.divergent_call_path.reset();
  c.call_round_trip.reset();
  c.call_path_source = nullptr;
  if (option == "none") return;
  const std::string file = !option.empty() ? option : default_call_path_path(constants_path);
  if (!file.empty()) model::set_call_path(c, file);
}

void check_request(const Request& q) {
  if (q.argv.empty() && q.from_counts.empty())
    throw UsageError("attribute: give the program to run after --, e.g. divbench attribute -- ./app");
  if (!q.argv.empty() && !q.from_counts.empty()) throw UsageError("attribute: --from-counts analyses a recorded run; give no program");
  if (q.calibrate && !q.from_counts.empty()) throw UsageError("attribute: --calibrate belongs to a run on a GPU, not to --from-counts");
  if (q.repeat < 1 || q.repeat > 2) throw UsageError("attribute: --repeat takes 1 or 2");
  if (!(q.timeout_s >= 0) || q.timeout_s > 7 * 86400) throw UsageError("attribute: --timeout takes 0 (none) to 604800 seconds");
  if (q.repeat > 1 && !q.from_counts.empty()) throw UsageError("attribute: --repeat belongs to a run, not to --from-counts");
  kernel_regex(q.kernel);
  if (!q.save_counts.empty()) {
    if (!q.from_counts.empty()) throw UsageError("--save-counts belongs to a run, not to --from-counts");
    if (fs::exists(q.save_counts) && (!fs::is_directory(q.save_counts) || !fs::is_empty(q.save_counts)))
      throw UsageError("--save-counts: " + one_line(q.save_counts) + " exists and is not an empty directory");
    std::string why;
    const fs::path parent = fs::absolute(q.save_counts).parent_path();
    if (!fs::is_directory(parent)) throw UsageError("--save-counts: its folder does not exist: " + one_line(parent.string()));
    if (::access(parent.c_str(), W_OK) != 0) throw UsageError("--save-counts: cannot write in " + one_line(parent.string()));
  }
}

Outcome run(const Request& q) {
  check_request(q);
  const NamePattern re = kernel_regex(q.kernel);
  std::vector<std::string> argv = q.argv;
  if (!argv.empty()) argv[0] = resolve_program(argv[0]);
  const auto loaded = model::load_constants(q.constants);
  if (!loaded) throw UsageError("attribute: no loop-cost constants (" + loaded.error() + "); give --constants FILE (divbench.loop_cost/1)");
  std::string used = loaded->file;
  std::optional<model::CostConstants> constants = loaded->constants;
  apply_memory(q.memory, *constants, used);
  apply_call_path(q.call_path, *constants, used);
  // Without B every branch would be priced at 0 cycles: refused, as kernels predict predicts no loop without it.
  if (!constants->taken_branch)
    throw UsageError(used + ": (/taken_branch_cycles) is null: the taken-branch constant B is not fitted, so branches "
                            "cannot be priced (kernels predict predicts nothing with it either); give fitted constants");
  const std::string nvdisasm = sass::find_nvdisasm(q.nvdisasm);
  std::string inject, pcsample_lib, cupti_dir;
  const bool all_kernels = q.cupti_version >= kAllKernelsVersion && !q.one_kernel_per_run;
  // Launch sampling (--launches N): one collection range per run (a second range of one process collects
  // nothing), opened at the first kernel not yet counted and closed for good at a kernel's N+1-th launch in
  // it; a kernel first launched after the close is counted by a later run, up to kMaxSampledRuns runs.
  const bool sample_launches = q.from_counts.empty() && all_kernels && q.launches > 0 && q.repeat == 1;
  constexpr int kMaxSampledRuns = 8;
  int sampled_runs = 0;
  if (q.from_counts.empty()) {
    inject = find_inject_library();
    if (q.cupti_path.empty()) throw UsageError("attribute: no CUPTI library; set DIVBENCH_CUPTI_LIB to libcupti.so");
    cupti_dir = q.cupti_path.find('/') == std::string::npos ? "" : fs::path(q.cupti_path).parent_path().string();
    if (q.pc_sampling) {
      const fs::path beside = fs::path(inject).parent_path() / "libdivbench_pcsample.so";
      if (const char* e = std::getenv("DIVBENCH_PCSAMPLE_LIB"); e && *e) pcsample_lib = e;
      else if (fs::is_regular_file(beside)) pcsample_lib = beside.string();
      // A sample every 2^12 cycles per SM unless the user chose: short kernels get enough samples. (Set
      // here, before any thread starts a program.)
      if (!pcsample_lib.empty()) ::setenv("DIVBENCH_PCSAMPLE_PERIOD", "12", 0);
    }
  }

  Outcome out;
  TempDir tmp;
  // Modules disassembled while the program ran (whole modules: nvdisasm costs about the same with -fun).
  constexpr std::size_t kEarlyModules = 64;
  constexpr std::uintmax_t kEarlyModuleBytes = 64u << 20;
  // DIVBENCH_EARLY_FROM_EXECUTABLE=0: no disassembly of the executable's cubins before it loads them
  // (the control of the overhead measurement, stage 50).
  const char* early_env = std::getenv("DIVBENCH_EARLY_FROM_EXECUTABLE");
  const bool kEarlyFromExecutable = !(early_env && std::string(early_env) == "0");
  const auto t_start = std::chrono::steady_clock::now();
  json phases = json::object();  // seconds since the start at the end of each phase (where the time goes)
  const auto since_start = [t_start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count(); };
  const auto mark = [&](const char* name) { phases[name] = since_start(); };
  // Per module disassembled: when nvdisasm started and ended (seconds since the start), early or not.
  std::mutex disassembly_mutex;
  json module_disassembly = json::object();
  const auto disassemble_timed = [&](const std::string& key, const std::string& path, const std::vector<SymbolGroup>& groups,
                                     bool while_running) {
    const double t0 = since_start();
    sass::Cubin c = disassemble_functions(path, nvdisasm, groups);
    const double t1 = since_start();
    std::lock_guard<std::mutex> lock(disassembly_mutex);
    module_disassembly[key] = {{"start_s", t0}, {"end_s", t1}, {"functions", groups.size()},
                               {"while_program_ran", while_running}};
    return c;
  };
  const auto module_disassembly_now = [&] {  // a copy: a cubin no module took may still be in nvdisasm
    std::lock_guard<std::mutex> lock(disassembly_mutex);
    return module_disassembly;
  };
  // Declared after what their tasks use (disassemble_timed and its mutex and records): a task still
  // running when run() leaves (an error thrown, a module no kernel of which is wanted) is waited for by
  // the future's destructor, which must come first.
  std::map<std::uint32_t, std::shared_future<sass::Cubin>> early;
  std::map<std::uint32_t, std::string> from_executable;  // crc -> the executable's cubin it matched
  // The executable's own cubins of the GPU's architecture, disassembled from the start (every kernel
  // with the subroutines of its section, as below): a module the program loads with the same bytes
  // takes that disassembly instead of starting its own.
  std::unique_ptr<EarlyCubins> exe_cubins;
  if (q.from_counts.empty() && kEarlyFromExecutable)
    exe_cubins = std::make_unique<EarlyCubins>(
        argv[0], sass::find_cuobjdump(nvdisasm), tmp.path() + "/executable", kEarlyModuleBytes,
        [&disassemble_timed](const std::string& label, const std::string& path) {
          return disassemble_timed(label, path, function_symbols(path, kernel_names(path)), true);
        });
  RunCounts counts;
  ProgramRun first;
  json runs = json::array();
  json nondeterministic = json::object();
  json uncounted = json::array();  // kernels launched that have no counts after every run
  PcSamples pcs;
  bool have_pcs = false;
  std::string collection_method;
  // The PC-sampling run: beside the counting run (the counts do not depend on timing; --jobs 1 keeps
  // one run at a time), or after it when --jobs 1 or a calibration is asked for (the calibration's
  // timing sweep runs alone: a calibration found needed after the first run waits for the sampling run).
  // Either way the modules are disassembled and analysed here on the CPU meanwhile.
  std::future<ProgramRun> sampling_run;
  const std::string pcs_dir = tmp.path() + "/pcsamples";
  // The sampling run of the program into pcs_dir, with a CUPTI hardware buffer of `mib` MiB (0: the library's).
  const auto sampling_spec = [&](int mib) {
    InjectedRun r{argv, pcs_dir, "", true, q.kernel, pcsample_lib, {}};
    if (mib > 0) r.env = {{"DIVBENCH_PCSAMPLE_HW_MIB", std::to_string(mib)}};
    return r;
  };
  const auto start_sampling = [&] {
    if (!q.from_counts.empty() || pcsample_lib.empty()) return;
    if (q.progress) std::cerr << "divbench attribute: one run with PC sampling (time per instruction)\n";
    const InjectedRun r = sampling_spec(q.pc_sampling_buffer_mib);
    sampling_run = std::async(std::launch::async, [r, inject, cupti_dir, timeout = q.timeout_s] {
      return run_injected({r}, inject, cupti_dir, 1, {}, timeout).front();
    });
  };
  const bool sampling_beside = q.jobs > 1 && !q.calibrate;
  if (!q.from_counts.empty()) {
    counts = read_recorded(q.from_counts);
    if (auto recorded = read_recorded_pcsamples(q.from_counts)) pcs = std::move(*recorded), have_pcs = true;
    collection_method = "recorded";
  } else {
    // 1. The program as it is (its output passes through): with CUPTI 13.4+ every kernel is counted in
    // this run; otherwise its kernels, its modules, and the counts of the first kernel it launches that
    // --kernel matches (so one kernel asked for is one run).
    if (q.progress)
      std::cerr << "divbench attribute: running " << one_line(argv[0])
                << (all_kernels ? " (every kernel instrumented: CUPTI " + std::to_string(q.cupti_version) + ")"
                                : std::string(" to find its kernels"))
                << "\n";
    const std::string disc_dir = tmp.path() + "/k0";
    // While the program runs (the GPU works, the CPU waits), every module it loads is disassembled as
    // soon as the injection library has saved it: nvdisasm's fixed cost per cubin is most of the analysis.
    std::atomic<bool> watching{true};
    std::thread watcher([&] {
      std::set<std::string> seen;
      while (true) {
        const bool last = !watching.load();
        std::error_code ec;
        for (fs::directory_iterator it(disc_dir + "/cubins", ec), end; !ec && it != end; it.increment(ec)) {
          const fs::path p = it->path();
          if (p.extension() != ".cubin" || seen.count(p.filename().string())) continue;
          seen.insert(p.filename().string());
          if (early.size() >= kEarlyModules || fs::file_size(p, ec) > kEarlyModuleBytes) continue;
          std::uint32_t crc = 0;
          try {
            crc = static_cast<std::uint32_t>(std::stoul(p.stem().string()));
          } catch (const std::exception&) {
            continue;
          }
          const std::string path = p.string();
          if (exe_cubins)
            if (auto f = exe_cubins->take(path)) {
              early.emplace(crc, std::move(f->cubin));
              from_executable[crc] = f->label;
              continue;
            }
          // Every kernel with the subroutines of its section, as the later path asks (a subroutine
          // then belongs to its kernel's code, not to a function of its own).
          early.emplace(crc, std::async(std::launch::async, [&disassemble_timed, crc, path] {
                          return disassemble_timed(std::to_string(crc), path, function_symbols(path, kernel_names(path)), true);
                        }).share());
        }
        if (last) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
    if (sampling_beside) start_sampling();
    try {
      InjectedRun spec{argv, disc_dir, all_kernels ? "*all*" : "", false, q.kernel, "", {}};
      if (sample_launches) spec.env = {{"DIVBENCH_ATTRIBUTE_LAUNCHES", std::to_string(q.launches)}};
      first = run_injected({spec}, inject, cupti_dir, 1, {}, q.timeout_s).front();
    } catch (...) {
      watching = false;
      watcher.join();
      throw;
    }
    watching = false;
    watcher.join();
    mark("first_run");
    if (first.timed_out)
      throw ProgramFailed{124, "attribute: " + one_line(argv[0]) + " ran past --timeout " + std::to_string(q.timeout_s) +
                                   " s and was ended (TERM, then KILL): no counts"};
    runs.push_back({{"target", all_kernels ? "(every kernel)" : "(discovery: the first kernel launched)"},
                    {"exit_code", first.exit_code},
                    {"wall_s", first.wall_s},
                    {"left_processes", first.left_processes}});
    if (first.left_processes)
      std::cerr << "divbench attribute: WARNING " << one_line(argv[0])
                << " left processes of its own running when it ended (children it forked): they were sent TERM; "
                   "what they ran after the program ended is not counted\n";
    RunCounts found;
    try {
      found = collect_counts(disc_dir, first, "counts");
    } catch (const UsageError& e) {
      if (first.exit_code == 0) throw;
      throw ProgramFailed{first.exit_code, e.what()};
    }
    std::vector<std::string> targets;
    for (const auto& [name, n] : found.launches)
      if (kernel_matches(re, name)) targets.push_back(name);
    // A kernel launched inside a CUDA graph has no launch callback of its own: in one run of every
    // kernel its counts are what says it ran.
    if (all_kernels)
      for (const auto& f : found.functions)
        if (kernel_matches(re, f.name) && !found.launches.count(f.name)) targets.push_back(f.name);
    if (targets.empty())
      throw UsageError("attribute: no kernel that ran matches --kernel " + one_line(q.kernel) + " (" +
                       std::to_string(found.launches.size()) + " kernel(s) ran)");
    keep_only(found, [&](const std::string& n) { return kernel_matches(re, n); });
    counts = found;
    std::set<std::string> done;
    for (const auto& f : found.functions) done.insert(f.name);
    for (sampled_runs = sample_launches ? 1 : 0; sample_launches && sampled_runs < kMaxSampledRuns; ++sampled_runs) {
      const bool missing = std::any_of(targets.begin(), targets.end(), [&](const std::string& t) { return !done.count(t); });
      if (!missing) break;
      const std::string dir = tmp.path() + "/s" + std::to_string(sampled_runs);
      fs::create_directories(dir);
      const std::string skip = dir + "/counted.txt";
      {
        std::ofstream f(skip);
        for (const auto& n : done) f << n << "\n";
      }
      if (q.progress)
        std::cerr << "divbench attribute: launch sampling: run " << sampled_runs + 1 << " for the kernels first launched "
                  << "after the last run's range closed\n";
      InjectedRun spec{argv, dir, "*all*", true, q.kernel, "", {{"DIVBENCH_ATTRIBUTE_LAUNCHES", std::to_string(q.launches)},
                                                                {"DIVBENCH_ATTRIBUTE_SKIP", skip}}};
      const ProgramRun r = run_injected({spec}, inject, cupti_dir, 1, {}, q.timeout_s).front();
      runs.push_back({{"target", "(launch sampling, run " + std::to_string(sampled_runs + 1) + ")"}, {"exit_code", r.exit_code},
                      {"wall_s", r.wall_s}, {"timed_out", r.timed_out}, {"left_processes", r.left_processes}});
      if (r.timed_out) break;
      RunCounts c = collect_counts(dir, r, "counts");
      c.launches.clear();  // the first run's launch counts stand
      keep_only(c, [&](const std::string& n) { return kernel_matches(re, n) && !done.count(n); });
      if (c.functions.empty()) break;
      for (const auto& f : c.functions) done.insert(f.name);
      merge_counts(counts, c);
    }
    // 2. CUPTI 13.0: one more run per kernel not yet counted, that kernel instrumented, --jobs at a time;
    // their output goes to logs. 3. --repeat 2: the whole instrumented run again (determinism). 4. PC sampling.
    std::vector<InjectedRun> more;
    if (!all_kernels)
      for (const auto& t : targets)
        if (!done.count(t)) more.push_back({argv, tmp.path() + "/k" + std::to_string(more.size() + 1), t, true, "", "", {}});
    const std::size_t n_kernel_runs = more.size();
    if (q.repeat > 1) more.push_back({argv, tmp.path() + "/repeat", all_kernels ? "*all*" : "", true, q.kernel, "", {}});
    const std::size_t repeat_index = q.repeat > 1 ? more.size() - 1 : SIZE_MAX;
    const std::vector<ProgramRun> results = run_injected(more, inject, cupti_dir, q.jobs, [&](std::size_t i) {
      if (!q.progress) return;
      if (i < n_kernel_runs)
        std::cerr << "divbench attribute: kernel " << i + 1 << "/" << n_kernel_runs << ": "
                  << one_line(model::demangle(more[i].target).substr(0, 100)) << "\n";
      else if (i == repeat_index) std::cerr << "divbench attribute: the instrumented run again (--repeat 2)\n";
    }, q.timeout_s);
    for (std::size_t i = 0; i < more.size(); ++i) {
      const auto& r = results[i];
      const std::string what = i < n_kernel_runs ? more[i].target : i == repeat_index ? "(repeat)" : "(pc sampling)";
      runs.push_back({{"target", what}, {"exit_code", r.exit_code}, {"wall_s", r.wall_s}, {"timed_out", r.timed_out},
                      {"left_processes", r.left_processes}});
      if (r.timed_out) {
        std::cerr << "divbench attribute: WARNING the run for " << one_line(model::demangle(what).substr(0, 80))
                  << " ran past --timeout and was ended: its counts are missing\n";
        continue;
      }
      if (r.exit_code != first.exit_code)
        std::cerr << "divbench attribute: WARNING the run for " << one_line(model::demangle(what).substr(0, 80))
                  << " ended with exit code " << r.exit_code << ", the first with " << first.exit_code
                  << ": the program does not repeat itself\n";
      RunCounts c = collect_counts(more[i].dir, r, "counts");
      c.launches.clear();  // the first run's launch counts stand
      if (i == repeat_index) {
        for (const auto& f : counts.functions)
          for (const auto& g : c.functions)
            if (g.crc == f.crc && g.name == f.name) {
              const double spread = count_spread(f, g);
              if (spread > 0) nondeterministic[f.name] = spread;
            }
        continue;
      }
      keep_only(c, [&](const std::string& n) { return n == more[i].target; });
      merge_counts(counts, c);
    }
    // A kernel launched that still has no counts was missed by CUPTI (measured: a kernel of a module the
    // program compiled with NVRTC and loaded itself); say so, or its branches are silently absent.
    std::set<std::string> counted;
    for (const auto& f : counts.functions) counted.insert(f.name);
    for (const auto& t : targets)
      if (!counted.count(t)) uncounted.push_back(t);
    if (!uncounted.empty())
      std::cerr << "divbench attribute: WARNING " << uncounted.size()
                << " kernel(s) were launched but CUPTI recorded no counts for them (first: "
                << one_line(model::demangle(uncounted[0].get<std::string>()).substr(0, 80))
                << "): they are missing from the report (collection.launched_without_counts)\n";
    collection_method = all_kernels ? "one run, every kernel instrumented" : "one run per kernel";
    mark("other_runs");
  }

  // Launch sampling: the counts of a kernel that ran more launches than were counted are scaled up to
  // all of them (the document says which, and by how much).
  const json extrapolated = extrapolate_sampled(counts);
  if (!extrapolated.empty())
    std::cerr << "divbench attribute: launch sampling: the counts of " << extrapolated.size() << " kernel(s) are their first "
              << counts.sample_first << " launch(es) scaled to all (collection.launch_sampling; --launches all for exact "
              << "counts)\n";

  // This GPU's constants: a one-second calibration when asked or when the constants were fitted on
  // another architecture.
  json calibration = nullptr;
  const int device_sm = model::sm_of_cc(counts.device.value("cc", ""));
  if (q.from_counts.empty() && (q.calibrate || (device_sm && device_sm != constants->sm))) {
    if (sampling_run.valid()) sampling_run.wait();  // the timing sweep alone on the GPU
    calibration = calibrate(tmp.path() + "/calibration");
    const auto c = model::load_constants(calibration["constants"].get<std::string>());
    if (!c || !c->constants.taken_branch)
      throw UsageError("attribute: the calibration's constants cannot be read (" + (c ? std::string("B not fitted") : c.error()) + ")");
    constants = c->constants;
    if (!q.memory.empty()) apply_memory(q.memory, *constants, "");  // --memory stands over the calibration's
    apply_call_path(q.call_path, *constants, "");                     // measured elsewhere: only when named
    used = "calibration on this GPU (" + calibration.value("command", std::string()) + ")";
    if (!calibration.value("trustworthy", false))
      std::cerr << "divbench attribute: WARNING the calibration sweep was disturbed (exit 4: another process on the "
                   "GPU, throttling or noise); its constants are used and the result says so (cost_model.calibration)\n";
  }

  if (!sampling_run.valid()) start_sampling();

  std::vector<std::string> not_found;
  std::map<std::uint32_t, std::vector<std::string>> wanted;
  for (const auto& fc : counts.functions)
    if (kernel_matches(re, fc.name)) wanted[fc.crc].push_back(fc.name);
  // Every module that ran a wanted kernel: the disassembly begun while the program ran, or else one
  // nvdisasm per module now (in parallel) on the wanted functions and the subroutines of their sections.
  {
    struct Job {
      std::uint32_t crc;
      std::shared_future<sass::Cubin> cubin;
    };
    std::vector<Job> jobs;
    for (const auto& [crc, names] : wanted) {
      if (const auto e = early.find(crc); e != early.end()) {
        jobs.push_back({crc, std::move(e->second)});
        continue;
      }
      const auto cit = counts.cubins.find(crc);
      if (cit == counts.cubins.end()) {
        out.modules.emplace(crc, nullptr);
        continue;
      }
      const std::string path = cit->second;
      // the wanted functions and their sections' subroutines, or all
      jobs.push_back({crc, std::async(std::launch::async, [&disassemble_timed, crc, path, names = names] {
                        return disassemble_timed(std::to_string(crc), path, function_symbols(path, names), false);
                      }).share()});
    }
    for (auto& j : jobs) {
      auto m = std::make_shared<Outcome::Module>();
      m->cubin = j.cubin.get();
      if (const auto cit = counts.cubins.find(j.crc); cit != counts.cubins.end()) m->cubin.path = cit->second;
      out.modules[j.crc] = std::move(m);
    }
  }
  mark("disassembly");
  // A module that took the executable's disassembly: its record under its crc, saying so.
  {
    std::lock_guard<std::mutex> lock(disassembly_mutex);
    for (const auto& [crc, label] : from_executable)
      if (module_disassembly.contains(label)) {
        json r = module_disassembly[label];
        r["from_executable"] = label.substr(label.find(':') + 1);
        module_disassembly.erase(label);
        module_disassembly[std::to_string(crc)] = r;
      }
  }
  std::vector<const sass::FunctionAnalysis*> analyses;
  for (const auto& fc0 : counts.functions) {
    if (!kernel_matches(re, fc0.name)) continue;
    Outcome::Module* m = out.modules.count(fc0.crc) ? out.modules[fc0.crc].get() : nullptr;
    const sass::FunctionAnalysis* fa = nullptr;
    if (m)
      for (const auto& f : m->cubin.functions)
        if (f.name == fc0.name) {
          auto& slot = m->analysed[f.name];
          if (!slot) slot = std::make_unique<sass::FunctionAnalysis>(sass::analyze(f));
          fa = slot.get();
        }
    if (!fa) {
      not_found.push_back(fc0.name);
      continue;
    }
    // Every counted pc is an instruction of this code (a pc beyond it would be summed into the totals and
    // priced nowhere: counts of another build, or edited).
    const sass::Function& code = *fa->function;
    check_pcs_inside(fc0, [&](std::uint64_t pc) { return pc <= UINT64_MAX - code.start && code.at(code.start + pc) != nullptr; },
                     code.length);
    out.counts.push_back(fc0);
    out.tables.push_back(branch_table(*fa, m->cubin.sm, m->cubin.source_files));
    out.costs.push_back(model::issue_costs(*fa->function, *constants));
    analyses.push_back(fa);
    out.functions.push_back(fa->function);
    std::vector<std::string> where;
    for (const auto& ins : fa->function->instructions) where.push_back(source_of(ins, m->cubin.source_files));
    out.sources.push_back(std::move(where));
  }

  mark("analysis");
  json retried_pcs = nullptr;  // the sampling run again with a larger buffer: why and what the first had
  if (sampling_run.valid()) {
    const ProgramRun r = sampling_run.get();  // Interrupted passes through
    runs.push_back({{"target", "(pc sampling)"}, {"exit_code", r.exit_code}, {"wall_s", r.wall_s}, {"timed_out", r.timed_out}});
    if (r.exit_code != first.exit_code)
      std::cerr << "divbench attribute: WARNING the PC-sampling run ended with exit code " << r.exit_code
                << ", the first with " << first.exit_code << ": the program does not repeat itself\n";
    if (auto sampled = read_recorded_pcsamples(pcs_dir)) pcs = std::move(*sampled), have_pcs = true;
    // A kernel long enough to fill CUPTI's small default buffer (the samples of the whole run may be
    // lost): once more with 512 MiB, unless the user chose the size. The small buffer keeps the common
    // case fast (results/h200/probes/pcsample-overhead: 128 short kernels, 526 ms against 780 ms with
    // 512 MiB); a long kernel (0.45 s) filled it and lost every sample, and 512 MiB held its 28.9 M.
    if (have_pcs && pcs.hardware_buffer_full && q.pc_sampling_buffer_mib == 0) {
      constexpr int kRetryMib = 512;
      std::cerr << "divbench attribute: the PC-sampling run filled CUPTI's " << pcs.hardware_buffer_mib
                << " MiB buffer (a long kernel): running it again with " << kRetryMib << " MiB\n";
      retried_pcs = json{{"first_buffer_mib", pcs.hardware_buffer_mib}, {"first_total_samples", pcs.total},
                         {"first_dropped_samples", pcs.dropped}, {"buffer_mib", kRetryMib}};
      fs::rename(pcs_dir, pcs_dir + ".first");
      const ProgramRun r2 = run_injected({sampling_spec(kRetryMib)}, inject, cupti_dir, 1, {}, q.timeout_s).front();
      runs.push_back({{"target", "(pc sampling, " + std::to_string(kRetryMib) + " MiB)"}, {"exit_code", r2.exit_code},
                      {"wall_s", r2.wall_s}, {"timed_out", r2.timed_out}});
      auto again = read_recorded_pcsamples(pcs_dir);
      have_pcs = again.has_value();
      pcs = again ? std::move(*again) : PcSamples{};
    }
    if (!have_pcs) std::cerr << "divbench attribute: WARNING the PC-sampling run left no samples; waits on memory stay lower bounds\n";
    if (have_pcs && (pcs.dropped > 0 || pcs.hardware_buffer_full))
      std::cerr << "divbench attribute: WARNING the PC-sampling run lost samples (" << pcs.dropped
                << " dropped" << (pcs.hardware_buffer_full ? ", CUPTI's hardware buffer filled" : "")
                << "): times measured from samples may be low; run again with --pc-sampling-buffer 512 (MiB)\n";
  }
  if (q.from_counts.empty()) {
    out.runs_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    out.runs = runs.size();
    if (!q.save_counts.empty()) {
      fs::create_directories(q.save_counts);
      // copy_symlinks: a symlink in the run's folder is kept as a link, never followed out of it.
      fs::copy(tmp.path(), q.save_counts,
               fs::copy_options::recursive | fs::copy_options::overwrite_existing | fs::copy_options::copy_symlinks);
    }
  }
  mark("sampling_run");
  json sampling = price(out, PriceInput{counts, have_pcs ? &pcs : nullptr, *constants, analyses});
  mark("attribution");
  mark("time_model");
  if (out.kernels.empty()) {
    if (!not_found.empty())
      throw UsageError("attribute: the code of " + one_line(model::demangle(not_found.front())) + " was not among the modules the program loaded");
    throw UsageError("attribute: no recorded kernel matches --kernel " + one_line(q.kernel) + " (" +
                     std::to_string(counts.functions.size()) + " kernel(s) recorded)");
  }

  std::string command;
  for (const auto& a : q.argv) command += (command.empty() ? "" : " ") + a;
  json cost_model = cost_model_document(*constants, used, have_pcs, out.kernels.front().table->sm);
  if (!calibration.is_null()) {
    calibration.erase("constants");  // a temporary file: its content is here
    cost_model["calibration"] = calibration;
  }
  const json pcs_json = have_pcs ? pc_sampling_document(pcs, retried_pcs) : json(nullptr);
  out.exit_code = first.exit_code;
  out.dropped_records = counts.dropped_records;
  out.document = json{
      {"schema", kAttributeSchema},
      {"provenance", to_json(make_provenance(this_command_line()))},
      {"program", {{"command", command}, {"exit_code", first.exit_code}, {"signal", first.signal}, {"wall_s", first.wall_s}}},
      {"launches", counts.launches},
      {"device", counts.device},
      {"collection",
       {{"method", "CUPTI SASS metrics: per-instruction patching, in the program's own process, no kernel replay; " +
                       collection_method},
        {"cupti", {{"library", q.cupti_path.empty() ? json(nullptr) : json(q.cupti_path)},
                   {"api_version", q.cupti_version ? json(q.cupti_version) : json(nullptr)},
                   {"every_kernel_in_one_run", q.from_counts.empty() ? json(all_kernels) : json(nullptr)}}},
        {"runs", runs},
        {"jobs", q.jobs},
        {"repeat", q.repeat},
        {"runs_wall_s", out.runs_wall_s},
        {"recorded", q.from_counts.empty() ? json(nullptr) : json(q.from_counts)},
        {"metrics", counts.metrics},
        {"dropped_records", counts.dropped_records},
        {"processes", counts.processes},
        {"kernels_ran", counts.functions.size()},
        {"launched_without_counts", uncounted},
        {"launch_sampling", counts.sample_first
                                ? json{{"first_launches", counts.sample_first},
                                       {"runs", q.from_counts.empty() ? json(sampled_runs) : json(nullptr)},
                                       {"extrapolated", extrapolated},
                                       {"note", "a kernel's counts are those of its first launches (per run of the program), "
                                                "scaled by its launches over them; kernels whose launches differ are "
                                                "estimated; --launches all counts every launch"}}
                                : json(nullptr)},
        {"pc_sampling", pcs_json},
        {"phases_s", phases},
        {"module_disassembly", module_disassembly_now()},
        {"executable_cubins", exe_cubins ? exe_cubins->summary() : json(nullptr)}}},
      {"cost_model", cost_model},
      {"totals", totals_document(out)},
      {"kernels", kernels_document(out, sampling, nondeterministic)}};
  if (!not_found.empty()) out.document["kernels_without_code"] = not_found;
  return out;
}

}  // namespace divbench::attribute
