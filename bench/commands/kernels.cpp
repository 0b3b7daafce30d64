// divbench kernels: facts about divbench's timed kernels from their SASS (docs/sass.md, "Kernel facts").
//   kernels facts FILE... --out F.json     loops, clock reads, branch sides, bracketing, probe arm layout
//                                          ("divbench.kernels/1"); the build writes kernel_facts.json
//   kernels fit --cost COST.json --facts F.json --out CONSTANTS.json
//                                          fits the loop-cost model's constants to measured a values
//   kernels predict --cubin FILE --function REGEX --json [--constants C.json]
//                                          a, a_min, a_max of every loop of any cubin (stdout)
//   kernels predict --facts F.json... --constants C.json --out-dir DIR
//                                          predicted a, b, s per architecture (results/predicted/)
#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/command.hpp"
#include "cli/nvdisasm_option.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/json_io.hpp"
#include "harness/experiment.hpp"
#include "divbench/model/kernel_facts.hpp"
#include "divbench/model/kernels_inputs.hpp"
#include "divbench/model/loop_cost.hpp"
#include "divbench/sass/nvdisasm.hpp"
#include "divbench/model/slope_prediction.hpp"

namespace {

using namespace divbench;

struct FactsOptions {
  std::vector<std::string> files;
  std::string nvdisasm;
  std::string out;
  bool if_tools = false;
  bool quiet = false;
};

struct FitOptions {
  std::string cost, facts, out;
  std::string validation;  // a --sweep loops result: predicted out of sample into validation[]
  std::string memory;      // a --sweep memory result: the load-pass lines per memory level
  std::vector<std::string> kway;
};

struct PredictOptions {
  std::vector<std::string> facts;
  std::string constants, out_dir;
  std::string cubin, function, nvdisasm;  // the general entry: any loop of any cubin or executable
  bool json_out = false;
  std::uint32_t n = model::kDefaultPredictionIters;
  std::string compare;
  std::vector<std::string> expect;
};

void require_writable(const std::string& path, const char* what) {
  std::string why;
  if (!path_is_writable(path, &why)) throw UsageError(std::string(what) + ": " + why);
}

std::string command_line(const std::string& head, const std::vector<std::string>& args) {
  std::string c = head;
  for (const auto& a : args) c += " " + a;
  return c;
}

int run_facts(const FactsOptions& o) {
  if (o.files.empty()) throw UsageError("kernels facts: give at least one cubin, object or executable");
  if (o.out.empty()) throw UsageError("kernels facts: --out FILE.json is required");
  check_output("--out", o.out, o.files);
  require_writable(o.out, "--out");
  for (const auto& f : o.files) sass::inspect_file(f);
  std::string nvdisasm;
  if (o.if_tools) {
    nvdisasm = sass::locate_tool("nvdisasm", o.nvdisasm);
    if (nvdisasm.empty() || sass::locate_tool("cuobjdump", nvdisasm).empty()) {
      std::error_code ec;
      std::filesystem::remove(o.out, ec);  // no stale facts about an older binary
      std::cerr << "divbench kernels facts: nvdisasm/cuobjdump not found: " << o.out << " not written\n";
      return kExitOk;
    }
  } else {
    nvdisasm = sass::find_nvdisasm(o.nvdisasm);
  }
  TempDir tmp;
  std::vector<sass::CubinFile> files;
  for (const auto& f : o.files) {
    if (!o.quiet) std::cerr << "divbench kernels facts: " << f << "\n";
    for (auto& c : sass::cubin_files(f, nvdisasm, tmp)) files.push_back(std::move(c));
  }
  // One cubin (one architecture) per task, on every hardware thread: nvdisasm and the analysis of
  // one cubin share nothing with another's. Results keep the input order; the first failure in that
  // order is the one reported.
  std::vector<sass::Cubin> cubins(files.size());  // analyses point into these
  std::vector<sass::CubinAnalysis> analyses(files.size());
  std::vector<std::exception_ptr> failed(files.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < files.size();) {
      try {
        cubins[i] = sass::disassemble(files[i].path, nvdisasm);
        cubins[i].source = files[i].source;
        analyses[i] = sass::analyze(cubins[i]);
      } catch (...) {
        failed[i] = std::current_exception();
      }
    }
  };
  const std::size_t threads = std::min<std::size_t>(files.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
  write_json_atomic(o.out, model::kernel_facts_document(analyses, nvdisasm, command_line("divbench kernels facts", o.files)));
  return kExitOk;
}

model::CostFit fit_inputs(const FitOptions& o) {
  const json facts = read_json_file(o.facts);
  if (!o.cost.empty()) {
    const json cost = read_json_file(o.cost);
    return model::fit_from_documents(facts, o.facts, &cost, o.cost, {}, {});
  }
  std::vector<json> docs;
  for (const auto& k : o.kway) docs.push_back(read_json_file(k));
  return model::fit_from_documents(facts, o.facts, nullptr, "", docs, o.kway);
}

int run_fit(const FitOptions& o) {
  if (o.cost.empty() == o.kway.empty()) throw UsageError("kernels fit: give either --cost FILE or --kway FILE...");
  std::vector<std::string> inputs{o.facts, o.cost};
  inputs.insert(inputs.end(), o.kway.begin(), o.kway.end());
  if (!o.memory.empty()) inputs.push_back(o.memory);
  check_output("--out", o.out, inputs);
  require_writable(o.out, "--out");
  model::CostFit fit = fit_inputs(o);
  if (!o.memory.empty()) model::set_memory_levels(fit.constants, o.memory);
  json doc = model::to_json(fit);
  if (!o.validation.empty()) {
    const json facts = read_json_file(o.facts);
    const json loops = read_json_file(o.validation);
    const json v = model::with_json_inputs({{"--validation", o.validation, &loops}, {"--facts", o.facts, &facts}}, [&] {
      // The loops experiment's own kernel names, through the registry (the command does not reach into its folder).
      const Experiment* e = find_experiment("loops", "sweep");
      if (!e || !e->kernel_needle) throw std::logic_error("kernels fit --validation: the loops experiment is not registered");
      return model::validate_loops(loops, o.validation, facts, fit.constants, e->kernel_needle);
    });
    doc.update(v);
    std::cout << "out of sample (" << o.validation << "): " << v["oos_points"].get<int>() << " loops, median |err| "
              << v["oos_median_abs_err"].dump() << ", max |err| " << v["oos_max_abs_err"].dump() << ", within 3%: "
              << v["oos_within_3pct"].get<int>() << ", inside the interval: " << v["oos_in_interval"].get<int>() << "\n";
  }
  write_json_atomic(o.out, doc);
  std::cout << model::fit_summary(fit);
  return kExitOk;
}

// Compares the regenerated documents with the committed ones in `dir`: one line per difference,
// architectures expected but not regenerated, committed files without a regenerated one (a note
// unless expected). Returns the number of problems.
int compare_with(const std::vector<std::pair<std::string, json>>& docs, const std::string& dir,
                 const std::vector<std::string>& expect) {
  int problems = 0;
  std::set<std::string> made;
  for (const auto& [arch, doc] : docs) {
    made.insert(arch);
    const auto path = std::filesystem::path(dir) / (arch + ".json");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      std::cout << arch << ": no committed " << path.string() << "\n";
      ++problems;
      continue;
    }
    const json committed = read_json_file(path.string());
    const auto lines = model::with_json_inputs({{"--compare", path.string(), &committed}},
                                               [&] { return model::compare_predictions(committed, doc); });
    for (const auto& l : lines) std::cout << arch << ".json: " << l << "\n";
    problems += static_cast<int>(lines.size());
    if (lines.empty()) std::cout << arch << ": same as committed\n";
  }
  for (const auto& e : expect)
    if (!made.count(e)) {
      std::cout << e << ": expected but not regenerated (no k-way kernel for it in the facts)\n";
      ++problems;
    }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("sm_", 0) == 0 && entry.path().extension() == ".json" && !made.count(entry.path().stem().string()))
      std::cout << entry.path().stem().string() << ": committed, not regenerated by this build (not compared)\n";
  }
  return problems;
}

// `kernels predict --cubin FILE --function REGEX --json`: the loops of the matching functions of any
// cubin, object or executable, predicted with --constants (default: the constants this build carries).
int run_predict_cubin(const PredictOptions& o) {
  if (!o.json_out) throw UsageError("kernels predict --cubin: give --json (the loops are printed as JSON on stdout)");
  if (o.function.empty()) throw UsageError("kernels predict --cubin: give --function REGEX");
  if (!o.out_dir.empty() || !o.facts.empty() || !o.compare.empty())
    throw UsageError("kernels predict --cubin: --facts, --out-dir and --compare belong to the per-architecture form");
  sass::inspect_file(o.cubin);
  const auto loaded = model::load_constants(o.constants);
  if (!loaded) throw UsageError("kernels predict --cubin: no loop-cost constants (" + loaded.error() + "); give --constants FILE");
  const model::CostConstants constants = loaded->constants;
  const std::string nvdisasm = sass::find_nvdisasm(o.nvdisasm);
  TempDir tmp;
  const std::vector<sass::Cubin> cubins = sass::load_cubins(o.cubin, nvdisasm, tmp);
  std::vector<sass::CubinAnalysis> analyses;
  for (const auto& c : cubins) analyses.push_back(sass::analyze(c));
  const json facts = model::kernel_facts_document(analyses, nvdisasm, "divbench kernels predict --cubin " + o.cubin);
  std::cout << model::predict_loops(facts, o.function, constants).dump(1) << "\n";
  return kExitOk;
}

int run_predict(const PredictOptions& o) {
  namespace fs = std::filesystem;
  if (!o.cubin.empty()) return run_predict_cubin(o);
  if (o.facts.empty() || o.constants.empty() || o.out_dir.empty())
    throw UsageError("kernels predict: give --facts, --constants and --out-dir (or --cubin FILE --function REGEX --json)");
  if (o.json_out || !o.function.empty()) throw UsageError("kernels predict: --json and --function go with --cubin");
  std::error_code ec;
  if (!o.compare.empty() && !fs::is_directory(o.compare, ec))
    throw UsageError("--compare: " + o.compare + " is not a directory");
  if (!o.compare.empty() && same_file(o.compare, o.out_dir))
    throw UsageError("--out-dir " + o.out_dir + " is the --compare folder: it would be compared with itself");
  if (o.n == 0) throw UsageError("--n: must be at least 1");
  if (fs::exists(o.out_dir, ec) && !fs::is_directory(o.out_dir, ec))
    throw UsageError("--out-dir: " + o.out_dir + " is not a directory");
  std::vector<std::string> inputs = o.facts;
  inputs.push_back(o.constants);
  std::vector<json> docs;
  for (const auto& f : o.facts) docs.push_back(read_json_file(f));
  const model::Predictions predictions =
      model::predict_from_documents(read_json_file(o.constants), o.constants, docs, o.facts, o.n);
  const auto& predicted = predictions.documents;
  // All or nothing: every sm_XX.json is checked and reserved (a temporary file next to it) before the
  // first is written; a folder that had to be made is removed again when anything fails.
  const bool made_dir = !fs::exists(o.out_dir, ec);
  fs::create_directories(o.out_dir, ec);
  if (!fs::is_directory(o.out_dir, ec)) throw UsageError("--out-dir: cannot create " + o.out_dir);
  try {
    std::vector<ReservedFile> files;
    std::vector<std::string> texts;
    for (const auto& [arch, doc] : predicted) {
      const std::string path = (fs::path(o.out_dir) / (arch + ".json")).string();
      check_output("--out-dir", path, inputs);
      files.emplace_back(path);
      texts.push_back(json_text(doc));
    }
    for (std::size_t i = 0; i < files.size(); ++i) files[i].commit(texts[i]);
  } catch (...) {
    if (made_dir) fs::remove_all(o.out_dir, ec);
    throw;
  }
  std::cout << predictions.summary;
  if (o.compare.empty()) return kExitOk;
  const int problems = compare_with(predicted, o.compare, o.expect);
  if (problems == 0) return kExitOk;
  std::cout << problems << " difference(s) from " << o.compare
            << ": after an intended change (kernels, toolkit, constants), regenerate with scripts/predict.sh and commit\n";
  return 1;
}

divbench::cli::Command kernels_command() {
  divbench::cli::Command c;
  c.name = "kernels";
  c.help = "Facts about divbench's timed kernels from their SASS: loops, clock bracketing, loop-cost model";
  c.setup = [](CLI::App& sub) -> std::function<int()> {
    sub.require_subcommand(1);
    auto fo = std::make_shared<FactsOptions>();
    auto* facts = sub.add_subcommand("facts", "Write divbench.kernels/1 for cubins, objects or executables");
    facts->add_option("files", fo->files, "Cubins, objects or executables with embedded cubins")->required();
    facts->add_option("--out", fo->out, "The divbench.kernels/1 JSON file (written atomically)")->required();
    cli::add_nvdisasm_option(*facts, fo->nvdisasm);
    facts->add_flag("--if-tools", fo->if_tools,
                    "Without nvdisasm/cuobjdump: remove --out, print a note and exit 0 (the build's step)");
    facts->add_flag("--quiet", fo->quiet, "No progress lines");
    auto fi = std::make_shared<FitOptions>();
    auto* fit = sub.add_subcommand("fit", "Fit the loop-cost model's constants to a cost result's measured a");
    fit->add_option("--cost", fi->cost, "A divbench.result/1 of --sweep cost (summary.bodies[].a)");
    fit->add_option("--kway", fi->kway, "Provisional instead: --sweep k results, one per body (a ~ s/n)");
    fit->add_option("--facts", fi->facts, "kernel_facts.json of the binary that produced it")->required();
    fit->add_option("--out", fi->out, "Constants JSON (divbench.loop_cost/1)")->required();
    fit->add_option("--validation", fi->validation,
                    "A --sweep loops result: loops the fit never sees, predicted into validation[] (out of sample)");
    fit->add_option("--memory", fi->memory,
                    "A --sweep memory result: a global load's pass against its sectors per memory level (attribute's memory rule)");
    auto po = std::make_shared<PredictOptions>();
    auto* predict = sub.add_subcommand("predict", "Predicted a, b, s per architecture from SASS and the constants");
    predict->add_option("--facts", po->facts, "divbench.kernels/1 files (every architecture they hold)");
    predict->add_option("--constants", po->constants,
                        "Constants JSON from `kernels fit` (with --cubin: default the constants this build carries)");
    predict->add_option("--out-dir", po->out_dir, "Directory for sm_XX.json (created when missing)");
    predict->add_option("--cubin", po->cubin, "Any cubin, object or executable: predict the loops of --function");
    predict->add_option("--function", po->function, "With --cubin: regular expression on the function names");
    predict->add_flag("--json", po->json_out, "With --cubin: print {\"loops\": [...]} on stdout");
    cli::add_nvdisasm_option(*predict, po->nvdisasm, "with --cubin");
    predict->add_option("--n", po->n, "Iterations per path for s = a*n + b (default 10000)");
    predict->add_option("--compare", po->compare, "Compare with the committed sm_XX.json in DIR (exit 1 on a difference)");
    predict->add_option("--expect", po->expect, "With --compare: architectures that must be regenerated (sm_XX ...)");
    return [facts, fit, predict, fo, fi, po]() -> int {
      if (facts->parsed()) return run_facts(*fo);
      if (fit->parsed()) return run_fit(*fi);
      if (predict->parsed()) return run_predict(*po);
      throw UsageError("kernels: give facts, fit or predict");
    };
  };
  return c;
}

}  // namespace

DIVBENCH_REGISTER_COMMAND(kernels_command);
