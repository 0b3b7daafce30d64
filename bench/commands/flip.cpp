// `divbench flip`: cubin bit flips, in three sub-commands (docs/bitflip.md):
//
//   divbench flip patch --cubin IN --function F (--offset 0x1d0 | --match 'BSSY*' [--nth N|--all])
//                       --bits 72:2 --value 1 --out OUT [--report R.json] [--no-verify] [--run]
//   divbench flip discover CUBIN_OR_BINARY... [--report R.json]
//   divbench flip experiment --cubin IN --function F [--match 'BSSY*,BSYNC*'] [--bits 72:2]
//                            [--control 'STG*'] --out RESULT.json [--dry-run] [--keep DIR]
//
// This file is the command line only: every input is checked here before anything runs or is
// written; the work and the reports are in src/cubin/ (flip_patch, discover_report, experiment).
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/command.hpp"
#include "cli/nvdisasm_option.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/core/provenance.hpp"
#include "divbench/cubin/discover.hpp"
#include "divbench/cubin/elf.hpp"
#include "divbench/cubin/experiment.hpp"
#include "divbench/cubin/flip_patch.hpp"
#include "divbench/cuda/device_info.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace {
namespace fs = std::filesystem;
using namespace divbench;
using namespace divbench::cubin;

struct FlipOptions {
  std::string cubin, function, offset, match, bits, value, out, report, nvdisasm, control = "STG*", keep;
  std::vector<std::string> files;
  int nth = -1;
  bool all = false, no_verify = false, run = false, dry_run = false, quiet = false;
  RunConfig run_cfg;
};

std::uint64_t parse_number(const std::string& opt, const std::string& s) {
  try {
    std::size_t used = 0;
    if (s.empty() || s[0] == '-' || s[0] == '+') throw std::invalid_argument(s);
    const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const auto v = std::stoull(hex ? s.substr(2) : s, &used, hex ? 16 : 10);
    if (hex) used += 2;
    if (used != s.size()) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw UsageError(opt + " '" + s + "': not a non-negative integer (decimal or 0x hex)");
  }
}

void require(const std::string& v, const std::string& what) {
  if (v.empty()) throw UsageError(what + " is required");
}

void check_writable(const std::string& opt, const std::string& path) {
  std::string why;
  if (!path_is_writable(path, &why)) throw UsageError(opt + ": cannot write " + path + ": " + why);
}

fs::path canonical_spelling(const std::string& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::path(p).lexically_normal() : c;
}

// --out (and --report) against the input: never the input, never each other, never a special file,
// writable (the output rule, divbench/core/files.hpp).
void check_outputs(const FlipOptions& o) {
  require(o.out, "--out FILE");
  if (same_file(o.out, o.cubin)) throw UsageError("--out must differ from --cubin: the original is never modified");
  check_output("--out", o.out, {o.cubin});
  check_writable("--out", o.out);
  if (!o.report.empty()) {
    if (same_file(o.report, o.cubin)) throw UsageError("--report must differ from --cubin");
    if (fs::path(o.report).lexically_normal() == fs::path(o.out).lexically_normal() || same_file(o.report, o.out) ||
        canonical_spelling(o.report) == canonical_spelling(o.out))
      throw UsageError("--report must differ from --out");
    check_output("--report", o.report, {o.cubin, o.out});
    check_writable("--report", o.report);
  }
}

RunConfig run_config(const FlipOptions& o) {
  RunConfig c = o.run_cfg;
  c.function = o.function;
  c.device_query = &divbench::query_device;  // the one device-info source, in the trial process
  check_run_config(c);
  return c;
}

int run_patch(const FlipOptions& o) {
  require(o.cubin, "--cubin FILE");
  require(o.function, "--function NAME");
  require(o.bits, "--bits FIRST:WIDTH (e.g. 72:2)");
  require(o.value, "--value V");
  PatchConfig cfg;
  cfg.cubin = o.cubin;
  cfg.function = o.function;
  if (!o.offset.empty()) cfg.offset = parse_number("--offset", o.offset);
  cfg.match = o.match;
  cfg.nth = o.nth;
  cfg.all = o.all;
  cfg.field = parse_bit_field(o.bits);
  cfg.value = parse_number("--value", o.value);
  cfg.verify = !o.no_verify;
  cfg.run = o.run;
  cfg.out = o.out;
  check_outputs(o);
  if (o.run) cfg.run_cfg = run_config(o);
  if (cfg.verify || !cfg.match.empty()) cfg.nvdisasm = sass::find_nvdisasm(o.nvdisasm);
  const PatchOutcome r = flip_patch(cfg, this_command_line());
  write_file_bytes_atomic(o.out, r.patched);
  if (o.report.empty()) std::cout << json_text(r.report) << std::flush;
  else write_json_atomic(o.report, r.report);
  if (!r.failure.empty()) throw std::runtime_error(r.failure);
  return kExitOk;
}

int run_discover(const FlipOptions& o) {
  if (!o.report.empty()) {
    check_output("--report", o.report, o.files);
    check_writable("--report", o.report);
  }
  const std::string nvd = sass::find_nvdisasm(o.nvdisasm);
  const json doc = discover_report(o.files, nvd, this_command_line(), o.quiet ? nullptr : &std::cerr);
  if (o.report.empty()) std::cout << json_text(doc) << std::flush;
  else write_json_atomic(o.report, doc);
  return kExitOk;
}

int run_experiment(const FlipOptions& o) {
  require(o.cubin, "--cubin FILE");
  require(o.function, "--function NAME");
  check_outputs(o);
  if (!o.keep.empty()) {
    std::error_code ec;
    if (!fs::is_directory(o.keep, ec)) throw UsageError("--keep " + o.keep + ": not a directory");
    check_writable("--keep", (fs::path(o.keep) / "x.cubin").string());
    if (same_file(fs::path(o.cubin).parent_path().empty() ? "." : fs::path(o.cubin).parent_path().string(), o.keep))
      throw UsageError("--keep " + o.keep + " holds the --cubin: the patched cubins could overwrite it; keep them elsewhere");
  }
  ExperimentConfig cfg;
  cfg.cubin = o.cubin;
  cfg.function = o.function;
  if (!o.match.empty()) cfg.match = o.match;
  cfg.control = o.control;
  if (!o.bits.empty()) cfg.field = parse_bit_field(o.bits);
  cfg.execute = !o.dry_run;
  cfg.run = run_config(o);
  cfg.nvdisasm = sass::find_nvdisasm(o.nvdisasm);
  cfg.keep_dir = o.keep;
  cfg.quiet = o.quiet;
  const json doc = run_flip_experiment(cfg, this_command_line());
  write_json_atomic(o.out, doc);
  if (!o.quiet) std::cerr << "[flip] wrote " << o.out << ": " << doc["summary"].dump() << std::endl;
  return kExitOk;
}

void add_run_options(CLI::App& s, FlipOptions& o) {
  s.add_option("--threads", o.run_cfg.threads, "Run: threads of the one block (multiple of 32, 32..1024; default 32)");
  s.add_option("--reps", o.run_cfg.reps, "Run: launches per cubin (default 11)")->check(CLI::Range(1, 100000));
  s.add_option("--timeout", o.run_cfg.timeout_s, "Run: seconds a launch may take before it counts as hung (default 20)")
      ->check(CLI::Range(0.001, 3600.0));
  s.add_option("--spin-cap", o.run_cfg.spin_cap, "Run: device-side bound of the partner wait (polls)")
      ->check(CLI::Range(1, 1 << 30));
  s.add_option("--device", o.run_cfg.device, "Run: GPU index")->check(CLI::NonNegativeNumber);
}

cli::Command flip_command() {
  cli::Command c;
  c.name = "flip";
  c.help = "Cubin bit flips: patch a bit field, discover modifier fields, run the bit-flip experiment";
  c.setup = [](CLI::App& sub) -> std::function<int()> {
    auto o = std::make_shared<FlipOptions>();
    sub.require_subcommand(1, 1);
    auto* patch = sub.add_subcommand("patch", "Set a bit field in instructions of a cubin, verify by disassembly");
    patch->add_option("--offset", o->offset, "Instruction offset in the function (0x1d0), a multiple of 16");
    patch->add_option("--match", o->match, "Select instructions by opcode pattern(s), e.g. 'BSSY*' or 'BSSY*,BSYNC*'");
    patch->add_option("--nth", o->nth, "With --match: only the Nth matching instruction (from 0)")->check(CLI::NonNegativeNumber);
    patch->add_flag("--all", o->all, "With --match: every matching instruction");
    patch->add_option("--bits", o->bits, "Bit field FIRST:WIDTH of the 128-bit instruction, e.g. 72:2");
    patch->add_option("--value", o->value, "Value written into the field (decimal or 0x hex)");
    patch->add_option("--out", o->out, "The patched cubin");
    patch->add_option("--report", o->report, "Write the divbench.flip/2 report here instead of stdout");
    patch->add_flag("--no-verify", o->no_verify, "Skip the verification by disassembly");
    patch->add_flag("--run", o->run, "Also run original and patched cubin on the GPU (flip-test kernel signature)");
    add_run_options(*patch, *o);

    auto* discover = sub.add_subcommand("discover", "Find the bits that carry opcode modifiers in cubins/binaries");
    discover->add_option("files", o->files, "Cubins, objects or executables with embedded cubins")->required();
    discover->add_option("--report", o->report, "Write the divbench.flip-discover/2 report here instead of stdout");
    discover->add_flag("--quiet", o->quiet, "No progress on stderr");

    auto* experiment = sub.add_subcommand("experiment", "Positive control + every value of --bits on every --match instruction");
    experiment->add_option("--match", o->match, "Instructions whose field is flipped (default 'BSSY*,BSYNC*')");
    experiment->add_option("--bits", o->bits, "Field swept through every value, at most 8 bits (default 72:2)");
    experiment->add_option("--control", o->control, "Stores the positive control disables (default 'STG*')");
    experiment->add_option("--out", o->out, "The divbench.bitflip/2 result");
    experiment->add_flag("--dry-run", o->dry_run, "Patch and verify every variant, run nothing (no GPU needed)");
    experiment->add_option("--keep", o->keep, "Write every patched cubin into this directory");
    experiment->add_flag("--quiet", o->quiet, "No progress on stderr");
    add_run_options(*experiment, *o);

    for (auto* s : {patch, experiment}) {
      s->add_option("--cubin", o->cubin, "Input cubin (never modified)");
      s->add_option("--function", o->function, "Kernel whose .text.<function> section is patched (experiment: flip-test signature)");
    }
    for (auto* s : {patch, discover, experiment})
      cli::add_nvdisasm_option(*s, o->nvdisasm);
    return [o, patch, discover]() {
      if (patch->parsed()) return run_patch(*o);
      if (discover->parsed()) return run_discover(*o);
      return run_experiment(*o);
    };
  };
  return c;
}

}  // namespace

DIVBENCH_REGISTER_COMMAND(flip_command);
