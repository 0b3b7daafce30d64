// divbench sass FILE...: static analysis of SASS (cubins, or executables/objects with embedded
// cubins): CFG, post-dominators, barrier regions, reconvergence placement, census, control words.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/nvdisasm_option.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/sass/analysis.hpp"
#include "divbench/sass/listing_cache.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace {

struct SassOptions {
  std::vector<std::string> files;
  std::string nvdisasm;
  std::string listing_cache;
  std::string out;
  std::string format = "console";
  bool quiet = false;
  bool out_given = false;
};

int run_sass(const SassOptions& o) {
  using namespace divbench;
  if (o.files.empty()) throw UsageError("sass: give at least one cubin, object or executable");
  if (o.out_given) {
    check_output("--out", o.out, o.files);
    std::string why;
    if (!path_is_writable(o.out, &why)) throw UsageError("--out: " + why);
  }
  for (const auto& f : o.files) sass::inspect_file(f);  // fail early, before running any tool
  if (!o.listing_cache.empty()) sass::check_listing_cache("--nvdisasm-cache", o.listing_cache);
  const std::string nvdisasm = sass::find_nvdisasm(o.nvdisasm);
  sass::DisassembleOptions dis;
  dis.listing_cache = o.listing_cache;
  TempDir tmp;
  std::vector<sass::Cubin> cubins;
  for (const auto& f : o.files) {
    // Progress only for a person watching (a terminal), so that a failure is one line on stderr.
    if (!o.quiet && o.format == "console" && o.files.size() > 1 && ::isatty(2)) std::cerr << "divbench sass: " << f << "\n";
    for (auto& c : sass::load_cubins(f, nvdisasm, tmp, dis)) cubins.push_back(std::move(c));
  }
  std::vector<sass::CubinAnalysis> analyses;
  for (const auto& c : cubins) analyses.push_back(sass::analyze(c));
  std::string command = "divbench sass";
  for (const auto& f : o.files) command += " " + f;
  const json doc = sass::to_document(analyses, nvdisasm, command);
  if (o.out_given) write_json_atomic(o.out, doc);
  if (o.format == "json") std::cout << json_text(doc);
  else if (!o.quiet)
    for (const auto& a : analyses) std::cout << sass::summary(a);
  return kExitOk;
}

divbench::cli::Command sass_command() {
  divbench::cli::Command c;
  c.name = "sass";
  c.help = "Analyse SASS: CFG, post-dominators, BSSY/BSYNC placement, control-flow census (needs nvdisasm)";
  c.setup = [](CLI::App& sub) -> std::function<int()> {
    auto o = std::make_shared<SassOptions>();
    sub.add_option("files", o->files, "Cubins, objects or executables with embedded cubins")->required();
    divbench::cli::add_nvdisasm_option(sub, o->nvdisasm);
    sub.add_option("--nvdisasm-cache", o->listing_cache,
                   "Keep nvdisasm's listings in DIR, keyed by nvdisasm, options and cubin bytes, and reuse them")
        ->type_name("DIR");
    sub.add_option("--out", o->out, "Write the divbench.sass/2 JSON to FILE (atomically)")
        ->each([o](const std::string&) { o->out_given = true; });
    sub.add_option("--format", o->format, "Console output: console|json")->check(CLI::IsMember({"console", "json"}));
    sub.add_flag("--quiet", o->quiet, "No console summary or progress");
    return [o] { return run_sass(*o); };
  };
  return c;
}

}  // namespace

DIVBENCH_REGISTER_COMMAND(sass_command);
