// `divbench flip`: set a bit field in SASS instructions of a cubin, verify the edit by disassembly,
// discover which encoding bits carry a modifier, and run the paper's bit-flip experiment.
//
//   divbench flip --cubin IN --function F (--offset 0x1d0 | --match 'BSSY*' [--nth N|--all])
//                 --bits 72:2 --value 1 --out OUT [--report R.json] [--no-verify] [--run]
//   divbench flip --discover CUBIN_OR_BINARY... [--report R.json]
//   divbench flip --experiment --cubin IN --function F [--match 'BSSY*,BSYNC*'] [--bits 72:2]
//                 [--control 'STG*'] --out RESULT.json [--dry-run] [--keep DIR]
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/core/result.hpp"
#include "divbench/cubin/disasm.hpp"
#include "divbench/cubin/discover.hpp"
#include "divbench/cubin/elf.hpp"
#include "divbench/cubin/experiment.hpp"
#include "divbench/cubin/patch.hpp"
#include "divbench/cubin/runner.hpp"
#include "divbench/cubin/verify.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace {
namespace fs = std::filesystem;
using namespace divbench;
using namespace divbench::cubin;

struct FlipOptions {
  std::string cubin, function, offset, match, bits, value, out, report, nvdisasm, control = "STG*", keep;
  std::vector<std::string> discover;
  int nth = -1;
  bool all = false, no_verify = false, run = false, experiment = false, dry_run = false, quiet = false;
  RunConfig run_cfg;
};

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto& c : s)
    if (c == '\0') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

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

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

void emit(const json& doc, const std::string& report) {
  if (report.empty())
    std::cout << doc.dump(2) << std::endl;
  else
    write_json_atomic(report, doc);
}

void check_out(const FlipOptions& o) {
  if (o.out.empty()) throw UsageError("--out FILE is required");
  std::error_code ec;
  if (!o.cubin.empty() && fs::exists(o.out, ec) && fs::equivalent(o.out, o.cubin, ec))
    throw UsageError("--out must differ from --cubin: the original is never modified");
  std::string why;
  if (!path_is_writable(o.out, &why)) throw UsageError("cannot write " + o.out + ": " + why);
}

int run_patch(const FlipOptions& o) {
  if (o.cubin.empty()) throw UsageError("--cubin FILE is required");
  if (o.function.empty()) throw UsageError("--function NAME is required");
  if (o.offset.empty() == o.match.empty()) throw UsageError("give exactly one of --offset OFF and --match PATTERN");
  if (!o.offset.empty() && (o.nth >= 0 || o.all)) throw UsageError("--nth/--all go with --match, not --offset");
  if (o.nth >= 0 && o.all) throw UsageError("--nth and --all exclude each other");
  if (o.bits.empty()) throw UsageError("--bits FIRST:WIDTH is required (e.g. 72:2)");
  if (o.value.empty()) throw UsageError("--value V is required");
  const BitField field = parse_bit_field(o.bits);
  const std::uint64_t value = parse_number("--value", o.value);
  check_value_fits(field, value);
  check_out(o);

  const CubinFile original = CubinFile::load(o.cubin);
  original.text_section(o.function);
  const bool verify = !o.no_verify;
  std::string nvd;
  if (verify || !o.match.empty()) nvd = sass::find_nvdisasm(o.nvdisasm);
  sass::Cubin dis;
  if (!nvd.empty()) dis = disassemble_bytes(original, nvd);

  std::vector<PatchRequest> reqs;
  if (!o.offset.empty()) {
    reqs.push_back({o.function, parse_number("--offset", o.offset), field, value});
  } else {
    for (const auto* ins : select_instructions(function_named(dis, o.function), o.match, o.nth, o.all))
      reqs.push_back({o.function, ins->offset, field, value});
  }
  CubinFile patched = original;
  patched.set_name(original.name() + " (patched)");
  const auto applied = apply_patches(patched, reqs);

  json doc;
  doc["schema"] = "divbench.flip/1";
  const Provenance prov = make_provenance(command_line());
  doc["provenance"] = {{"git", prov.git}, {"created", prov.created}, {"command", prov.command}};
  doc["cubin"] = {{"path", o.cubin}, {"sm", original.sm()}, {"abi_version", original.header().abi_version},
                  {"e_flags", hex(original.header().flags)}, {"function", o.function}};
  doc["bits"] = o.bits;
  doc["value"] = value;
  json pa = json::array();
  for (const auto& a : applied) {
    json p = {{"offset", hex(a.request.offset)},
              {"old_value", a.old_value},
              {"new_value", a.request.value},
              {"bytes_before", hex128(a.old_lo, a.old_hi)},
              {"bytes_after", hex128(a.new_lo, a.new_hi)}};
    if (!nvd.empty())
      if (const auto* ins = function_named(dis, o.function).at(a.request.offset)) p["text_before"] = ins->text();
    pa.push_back(p);
  }
  doc["patches"] = pa;
  int rc = kExitOk;
  std::string failure;
  if (verify) {
    const VerifyReport vr = verify_patch(original, dis, patched, o.function, nvd);
    doc["verify"] = vr.to_json();
    if (!vr.ok) {
      rc = kExitFailure;
      failure = "verification by disassembly failed: " + vr.error;
    }
  }
  write_file_bytes_atomic(o.out, patched.bytes());
  doc["out"] = o.out;
  if (o.run) {
    RunConfig rc_cfg = o.run_cfg;
    rc_cfg.function = o.function;
    const auto r = run_trials_isolated({original.bytes(), patched.bytes()}, rc_cfg);
    const auto input = flip_test_input(rc_cfg.threads);
    doc["run"] = {{"baseline", to_json(r[0])},
                  {"patched", to_json(r[1])},
                  {"baseline_matches_model", compare(r[0], r[0], input).matches_model},
                  {"comparison", compare(r[0], r[1], input).to_json()}};
  }
  emit(doc, o.report);
  if (rc != kExitOk) throw std::runtime_error(failure);
  return rc;
}

int run_discover(const FlipOptions& o) {
  const std::string nvd = sass::find_nvdisasm(o.nvdisasm);
  sass::TempDir tmp;
  std::vector<CubinFile> files;
  std::vector<sass::Cubin> dis;
  sass::DisassembleOptions opt;
  opt.encodings = false;
  for (const auto& f : o.discover) {
    for (auto& c : sass::load_cubins(f, nvd, tmp, opt)) {
      files.push_back(CubinFile::load(c.path));
      c.source = f;
      dis.push_back(std::move(c));
    }
  }
  std::vector<CorpusEntry> corpus;
  json cj = json::array();
  for (std::size_t i = 0; i < files.size(); ++i) {
    corpus.push_back({&files[i], &dis[i]});
    cj.push_back({{"file", dis[i].source}, {"sm", files[i].sm()}, {"functions", dis[i].functions.size()}});
  }
  json doc;
  doc["schema"] = "divbench.flip-discover/1";
  const Provenance prov = make_provenance(command_line());
  doc["provenance"] = {{"git", prov.git}, {"created", prov.created}, {"command", prov.command},
                       {"nvdisasm", sass::tool_version(nvd)}};
  doc["corpus"] = cj;
  json fields = json::array();
  for (const auto& f : discover_modifier_fields(corpus)) {
    fields.push_back(to_json(f));
    if (!o.quiet) {
      std::string bits;
      for (int b : f.bits) bits += (bits.empty() ? "" : ",") + std::to_string(b);
      std::cerr << "sm_" << f.sm << " " << f.from << " -> " << f.to << ": bits " << (bits.empty() ? "(none)" : bits)
                << " (" << f.from_count << " vs " << f.to_count << " instructions)\n";
    }
  }
  doc["fields"] = fields;
  emit(doc, o.report);
  return kExitOk;
}

int run_experiment(const FlipOptions& o) {
  if (o.cubin.empty()) throw UsageError("--cubin FILE is required");
  if (o.function.empty()) throw UsageError("--function NAME is required");
  if (o.offset.size() || o.nth >= 0 || !o.value.empty())
    throw UsageError("--experiment sweeps every value of --bits on every --match instruction: drop --offset/--nth/--value");
  check_out(o);
  if (!o.keep.empty() && !fs::is_directory(o.keep)) throw UsageError("--keep " + o.keep + ": not a directory");
  ExperimentConfig cfg;
  cfg.cubin = o.cubin;
  cfg.function = o.function;
  if (!o.match.empty()) cfg.match = o.match;
  cfg.control = o.control;
  if (!o.bits.empty()) cfg.field = parse_bit_field(o.bits);
  cfg.execute = !o.dry_run;
  cfg.nvdisasm = sass::find_nvdisasm(o.nvdisasm);
  cfg.keep_dir = o.keep;
  cfg.run = o.run_cfg;
  cfg.run.function = o.function;
  cfg.quiet = o.quiet;
  const json doc = run_flip_experiment(cfg, command_line());
  write_json_atomic(o.out, doc);
  if (!o.quiet) std::cerr << "[flip] wrote " << o.out << ": " << doc["summary"].dump() << std::endl;
  return kExitOk;
}

cli::Command flip_command() {
  cli::Command c;
  c.name = "flip";
  c.help = "Bit-flip experiments on cubins: patch a bit field, verify by disassembly, discover fields, run";
  c.setup = [](CLI::App& sub) -> std::function<int()> {
    auto o = std::make_shared<FlipOptions>();
    sub.add_option("--cubin", o->cubin, "Input cubin (never modified)");
    sub.add_option("--function", o->function, "Kernel whose .text.<function> section is patched");
    sub.add_option("--offset", o->offset, "Instruction offset in the function (0x1d0), a multiple of 16");
    sub.add_option("--match", o->match, "Select instructions by opcode pattern(s), e.g. 'BSSY*' or 'BSSY*,BSYNC*'");
    sub.add_option("--nth", o->nth, "With --match: only the Nth matching instruction (from 0)")->check(CLI::NonNegativeNumber);
    sub.add_flag("--all", o->all, "With --match: every matching instruction");
    sub.add_option("--bits", o->bits, "Bit field FIRST:WIDTH of the 128-bit instruction, e.g. 72:2");
    sub.add_option("--value", o->value, "Value written into the field (decimal or 0x hex)");
    sub.add_option("--out", o->out, "Output: the patched cubin, or the experiment's JSON");
    sub.add_option("--report", o->report, "Write the JSON report here instead of stdout");
    sub.add_flag("--no-verify", o->no_verify, "Skip the verification by disassembly");
    sub.add_option("--nvdisasm", o->nvdisasm, "Path of nvdisasm (default: search, see divbench sass --help)");
    sub.add_flag("--run", o->run, "Also run original and patched cubin on the GPU (flip-test kernel signature)");
    sub.add_option("--discover", o->discover, "Find the bits that carry opcode modifiers in these cubins/binaries")
        ->expected(1, -1);
    sub.add_flag("--experiment", o->experiment, "Positive control + every value of --bits on every --match instruction");
    sub.add_option("--control", o->control, "Experiment: stores the positive control disables (default 'STG*')");
    sub.add_flag("--dry-run", o->dry_run, "Experiment: patch and verify every variant, run nothing (no GPU needed)");
    sub.add_option("--keep", o->keep, "Experiment: write every patched cubin into this directory");
    sub.add_option("--threads", o->run_cfg.threads, "Run: threads of the one block (multiple of 32, default 32)");
    sub.add_option("--reps", o->run_cfg.reps, "Run: launches per cubin (default 11)")->check(CLI::Range(1, 100000));
    sub.add_option("--timeout", o->run_cfg.timeout_s, "Run: seconds a launch may take before it counts as hung (default 20)")
        ->check(CLI::Range(0.001, 3600.0));
    sub.add_option("--spin-cap", o->run_cfg.spin_cap, "Run: device-side bound of the partner wait (polls)")
        ->check(CLI::Range(1, 1 << 30));
    sub.add_option("--device", o->run_cfg.device, "Run: GPU index")->check(CLI::NonNegativeNumber);
    sub.add_flag("--quiet", o->quiet, "No progress on stderr");
    return [o]() {
      if (!o->discover.empty()) {
        if (o->experiment || !o->cubin.empty() || !o->out.empty())
          throw UsageError("--discover takes files of its own; it excludes --cubin/--out/--experiment");
        return run_discover(*o);
      }
      if (o->experiment) return run_experiment(*o);
      if (o->dry_run || !o->keep.empty()) throw UsageError("--dry-run/--keep belong to --experiment");
      return run_patch(*o);
    };
  };
  return c;
}

}  // namespace

DIVBENCH_REGISTER_COMMAND(flip_command);
