#include "divbench/cubin/flip_patch.hpp"

#include "divbench/core/errors.hpp"
#include "divbench/core/hex.hpp"
#include "divbench/core/provenance.hpp"
#include "divbench/cubin/disasm.hpp"
#include "divbench/cubin/elf.hpp"
#include "divbench/cubin/verify.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace divbench::cubin {

PatchOutcome flip_patch(const PatchConfig& cfg, const std::string& command_line) {
  if (cfg.offset.has_value() == !cfg.match.empty()) throw UsageError("give exactly one of --offset OFF and --match PATTERN");
  if (cfg.nth >= 0 && cfg.all) throw UsageError("--nth and --all exclude each other");
  if (cfg.offset && (cfg.nth >= 0 || cfg.all)) throw UsageError("--nth/--all go with --match, not --offset");
  check_value_fits(cfg.field, cfg.value);
  if (cfg.run) check_run_config(cfg.run_cfg);
  if ((cfg.verify || !cfg.match.empty()) && cfg.nvdisasm.empty())
    throw UsageError("nvdisasm is needed to select by --match or to verify (--no-verify skips the verification)");

  const CubinFile original = CubinFile::load(cfg.cubin);
  original.text_section(cfg.function);
  sass::Cubin dis;
  if (!cfg.nvdisasm.empty()) dis = disassemble_bytes(original, cfg.nvdisasm);

  std::vector<PatchRequest> reqs;
  if (cfg.offset) {
    reqs.push_back({cfg.function, *cfg.offset, cfg.field, cfg.value});
  } else {
    for (const auto* ins : select_instructions(function_named(dis, cfg.function), cfg.match, cfg.nth, cfg.all))
      reqs.push_back({cfg.function, ins->offset, cfg.field, cfg.value});
  }
  CubinFile patched = original;
  patched.set_name(original.name() + " (patched)");
  const auto applied = apply_patches(patched, reqs);

  PatchOutcome r;
  json& doc = r.report;
  doc["schema"] = kFlipSchema;
  Provenance prov = make_provenance(command_line);
  if (!cfg.nvdisasm.empty()) prov.tools["nvdisasm"] = {cfg.nvdisasm, sass::tool_version(cfg.nvdisasm)};
  doc["provenance"] = divbench::to_json(prov);
  doc["cubin"] = {{"path", cfg.cubin}, {"sm", original.sm()}, {"abi_version", original.header().abi_version},
                  {"e_flags", hex(original.header().flags)}, {"function", cfg.function}};
  doc["bits"] = std::to_string(cfg.field.first) + ":" + std::to_string(cfg.field.width);
  doc["value"] = cfg.value;
  json pa = json::array();
  for (const auto& a : applied) {
    json p = {{"offset", hex(a.request.offset)},
              {"old_value", a.old_value},
              {"new_value", a.request.value},
              {"bytes_before", hex128(a.old_lo, a.old_hi)},
              {"bytes_after", hex128(a.new_lo, a.new_hi)}};
    if (!cfg.nvdisasm.empty())
      if (const auto* ins = function_named(dis, cfg.function).at(a.request.offset)) p["text_before"] = ins->text();
    pa.push_back(p);
  }
  doc["patches"] = pa;
  if (cfg.verify) {
    const VerifyReport vr = verify_patch(original, dis, patched, cfg.function, cfg.nvdisasm);
    doc["verify"] = vr.to_json();
    if (!vr.ok) r.failure = "verification by disassembly failed: " + vr.error;
  }
  doc["out"] = cfg.out;
  if (cfg.run) {
    RunConfig rc = cfg.run_cfg;
    rc.function = cfg.function;
    const auto t = run_trials_isolated({original.bytes(), patched.bytes()}, rc, cfg.driver);
    const auto input = flip_test_input(rc.threads);
    doc["device"] = divbench::to_json(t[0].device);
    json base = to_json(t[0]), pat = to_json(t[1]);
    base.erase("device");
    pat.erase("device");
    doc["run"] = {{"baseline", base},
                  {"patched", pat},
                  {"baseline_matches_model", compare(t[0], t[0], input).matches_model},
                  {"comparison", compare(t[0], t[1], input).to_json()}};
  }
  r.patched = patched.bytes();
  return r;
}

}  // namespace divbench::cubin
