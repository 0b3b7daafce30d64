// divbench attribute diff BASE NEW: a divergence gate for CI (docs/attribute.md "Gate divergence in CI").
//   BASE, NEW: attribute documents (divbench attribute --out) or saved-count folders (--save-counts DIR,
//   analysed as --from-counts does, by this executable). Exit 0: no regression; 1: a regression; 2: bad
//   input (one line, before any work). The verdict: include/divbench/attribute/diff.hpp; --annotations github
//   and --sarif FILE (the regressions for a CI, same exit status): include/divbench/attribute/diff_ci.hpp.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/nvdisasm_option.hpp"
#include "divbench/attribute/diff.hpp"
#include "divbench/attribute/diff_ci.hpp"
#include "divbench/build_info.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/core/process.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace {

using namespace divbench;
namespace fs = std::filesystem;

struct DiffCommandOptions {
  std::string base, next, json_out, markdown, nvdisasm;
  std::string annotations, sarif, repo_root;  // --annotations github, --sarif FILE, --repo-root DIR
  // For saved-count folders: the cost model their analysis reads (as attribute --from-counts takes them).
  std::string constants, memory, call_path;
  attribute::DiffOptions diff;
  bool quiet = false;
};

// A saved-count folder holds counts-*.json somewhere below it (what --from-counts reads).
bool has_counts(const std::string& dir) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.rfind("counts-", 0) == 0 && it->path().extension() == ".json" && it->is_regular_file(ec)) return true;
  }
  return false;
}

// "BASE x.json" / "NEW dir/": checked before any work; true for a folder.
bool check_input(const std::string& role, const std::string& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (!fs::exists(st)) throw UsageError(role + " " + one_line(path) + ": no such file or directory");
  if (fs::is_directory(st)) {
    if (!has_counts(path))
      throw UsageError(role + " " + one_line(path) +
                       ": a folder without counts-*.json (not a divbench attribute --save-counts folder)");
    return true;
  }
  if (!fs::is_regular_file(st)) throw UsageError(role + " " + one_line(path) + ": not a regular file (a FIFO, device or socket)");
  return false;
}

// The document of a saved-count folder: `divbench attribute --from-counts DIR --out F` (this executable).
json analyse_counts(const std::string& role, const std::string& dir, const DiffCommandOptions& o, const std::string& out) {
  const std::string self = own_executable();
  if (self.empty()) throw UsageError("attribute diff: analysing " + role + " runs divbench itself, and /proc/self/exe cannot be read");
  std::vector<std::string> argv{self, "attribute", "--quiet", "--from-counts", dir, "--out", out};
  for (const auto& [opt, v] : {std::pair{"--nvdisasm", o.nvdisasm}, {"--constants", o.constants}, {"--memory", o.memory},
                               {"--call-path", o.call_path}})
    if (!v.empty()) argv.insert(argv.end(), {opt, v});
  const ProcessResult r = run_process(argv);
  if (r.exit_code != 0) {
    std::string line = r.err.substr(0, r.err.find('\n'));
    const std::string prefix = "divbench: error: ";
    if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
    throw UsageError(role + " " + one_line(dir) + ": divbench attribute --from-counts failed (exit " +
                     std::to_string(r.exit_code) + "): " + one_line(line));
  }
  return read_json_file(out);
}

int run_diff(const DiffCommandOptions& o) {
  if (!std::isfinite(o.diff.max_efficiency_drop) || !std::isfinite(o.diff.max_cycles_lost_rise))
    throw UsageError("--max-efficiency-drop and --max-cycles-lost-rise must be finite numbers >= 0");
  if (!o.annotations.empty() && o.annotations != "github")
    throw UsageError("--annotations: '" + one_line(o.annotations) + "' is not a CI divbench knows (github)");
  if (!o.repo_root.empty()) {
    if (o.annotations.empty() && o.sarif.empty())
      throw UsageError("--repo-root is for --annotations and --sarif (the paths they give are relative to it)");
    std::error_code ec;
    if (!fs::is_directory(o.repo_root, ec)) throw UsageError("--repo-root " + one_line(o.repo_root) + ": not a directory");
  }
  const bool base_dir = check_input("BASE", o.base), new_dir = check_input("NEW", o.next);
  // The inputs: BASE, NEW, every file inside a BASE or NEW folder (its counts, cubins, PC samples),
  // nvdisasm and divbench itself (it analyses the folders).
  std::vector<std::string> inputs{o.base, o.next};
  for (const auto& [dir, is_dir] : {std::pair{o.base, base_dir}, {o.next, new_dir}}) {
    if (!is_dir) continue;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (!it->is_directory(ec)) inputs.push_back(it->path().string());
  }
  if (base_dir || new_dir) {
    try {
      inputs.push_back(sass::find_nvdisasm(o.nvdisasm));
    } catch (const UsageError&) {
    }
  }
  if (const std::string self = own_executable(); !self.empty()) inputs.push_back(self);
  for (const auto& [opt, v] : {std::pair{"--constants", o.constants}, {"--memory", o.memory}, {"--call-path", o.call_path}}) {
    if (v.empty() || (opt != std::string("--constants") && v == "none")) continue;
    if (!base_dir && !new_dir)
      throw UsageError(std::string(opt) + " is for saved-count folders (BASE and NEW here are documents, already priced)");
    std::error_code ec;
    if (!fs::is_regular_file(v, ec)) throw UsageError(std::string(opt) + " " + one_line(v) + ": no such file");
    inputs.push_back(v);
  }
  const std::vector<std::pair<const char*, std::string>> outputs{{"--json", o.json_out}, {"--markdown", o.markdown},
                                                                 {"--sarif", o.sarif}};
  for (const auto& [opt, path] : outputs) {
    if (path.empty()) continue;
    check_output(opt, path, inputs);
    std::string why;
    if (!path_is_writable(path, &why)) throw UsageError(std::string(opt) + ": " + why);
  }
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      const auto& [a, pa] = outputs[i];
      const auto& [b, pb] = outputs[j];
      if (!pa.empty() && !pb.empty() && (pa == pb || same_file(pa, pb)))
        throw UsageError(std::string(a) + " and " + b + " name the same file: " + one_line(pa));
    }
  const std::string repo_root = o.repo_root.empty() ? attribute::default_repo_root() : o.repo_root;
  // The documents given as files first (cheap: a bad one is refused before any folder is analysed).
  json base, next;
  const auto read_doc = [](const std::string& role, const std::string& path) {
    json d;
    try {
      d = read_json_file(path);
    } catch (const UsageError& e) {
      throw UsageError(role + " " + std::string(e.what()));
    }
    attribute::check_attribute_document(d, role + " " + one_line(path));
    return d;
  };
  if (!base_dir) base = read_doc("BASE", o.base);
  if (!new_dir) next = read_doc("NEW", o.next);
  if (base_dir || new_dir) {
    TempDir tmp;
    if (base_dir) base = analyse_counts("BASE", o.base, o, tmp.path() + "/base.json");
    if (new_dir) next = analyse_counts("NEW", o.next, o, tmp.path() + "/new.json");
  }
  const json verdict = attribute::diff_documents(base, next, o.diff, o.base, o.next);
  if (!o.json_out.empty()) write_json_atomic(o.json_out, verdict);
  if (!o.markdown.empty()) write_text_atomic(o.markdown, attribute::diff_markdown(verdict));
  if (!o.sarif.empty()) write_json_atomic(o.sarif, attribute::diff_sarif(verdict, repo_root, build::version));
  if (!o.quiet) std::cerr << attribute::diff_console(verdict);
  if (!o.annotations.empty()) std::cout << attribute::github_annotations(verdict, repo_root) << std::flush;
  return verdict["regression"].get<bool>() ? kExitFailure : kExitOk;
}

divbench::cli::Command attribute_diff_command() {
  divbench::cli::Command c;
  c.name = "diff";
  c.parent = "attribute";
  c.help = "Divergence regressions between two builds: BASE and NEW attribute documents (--out) or --save-counts "
           "folders; exit 0 none, 1 regression, 2 bad input";
  c.setup = [](CLI::App& sub) -> std::function<int()> {
    auto o = std::make_shared<DiffCommandOptions>();
    sub.add_option("BASE", o->base, "The base build's attribute document (divbench.attribute/1) or --save-counts folder")
        ->required();
    sub.add_option("NEW", o->next, "The new build's attribute document or --save-counts folder")->required();
    sub.add_option("--json", o->json_out, "Write the verdict (divbench.attribute_diff/1) to FILE");
    sub.add_option("--markdown", o->markdown, "Write a markdown table for a pull-request comment to FILE");
    sub.add_option("--annotations", o->annotations,
                   "github: the regressions as GitHub workflow commands on stdout (::error file=,line=,title=::), "
                   "worst first, at most 10 (GitHub shows 10 per step) and a ::notice:: with how many did not fit")
        ->type_name("github");
    sub.add_option("--sarif", o->sarif,
                   "Write the regressions as SARIF 2.1.0 to FILE (for github/codeql-action/upload-sarif): one result "
                   "per regression with a source line, uris relative to --repo-root");
    sub.add_option("--repo-root", o->repo_root,
                   "The folder --annotations and --sarif give paths relative to (default: the git top-level of the "
                   "current directory, else the current directory)");
    sub.add_option("--max-efficiency-drop", o->diff.max_efficiency_drop,
                   "Largest drop of a divergent branch's region efficiency that is not a regression (absolute, "
                   "default 0.01)")
        ->check(CLI::Range(0.0, 1.0));
    sub.add_option("--max-cycles-lost-rise", o->diff.max_cycles_lost_rise,
                   "Largest rise of a branch's estimated cycles lost that is not a regression (relative, default 0.05)")
        ->check(CLI::Range(0.0, 1e9));
    sub.add_flag("--allow-new-divergent-branches", o->diff.allow_new_divergent_branches,
                 "A branch that diverges in NEW and not in BASE (added, or now divergent) is not a regression");
    cli::add_nvdisasm_option(sub, o->nvdisasm, "to analyse saved-count folders");
    sub.add_option("--constants", o->constants,
                   "Saved-count folders: the loop-cost constants their analysis reads (default: as attribute --from-counts "
                   "finds them, next to divbench or in results/h200 above it)");
    sub.add_option("--memory", o->memory, "Saved-count folders: the memory probe (divbench --sweep memory) their analysis "
                                          "reads, or none");
    sub.add_option("--call-path", o->call_path, "Saved-count folders: the call-path calibration their analysis reads, or none");
    sub.add_flag("--quiet", o->quiet, "No console summary");
    return [o] { return run_diff(*o); };
  };
  return c;
}

}  // namespace

DIVBENCH_REGISTER_COMMAND(attribute_diff_command);
