#include "divbench/cubin/experiment.hpp"

#include <iostream>

#include "divbench/core/errors.hpp"
#include "divbench/core/hex.hpp"
#include "divbench/core/provenance.hpp"
#include "divbench/cubin/disasm.hpp"
#include "divbench/cubin/elf.hpp"
#include "divbench/cubin/verify.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace divbench::cubin {
namespace {

constexpr long long kCyclesSentinel = 0x5e5e5e5e5e5e5e5eLL;  // runner's fill: the cycles store was disabled

struct Variant {
  std::string kind;  // "control" | "flip" | "flip_all"
  std::string label;
  std::vector<PatchRequest> patches;
  json targets = json::array();
};

std::string field_text(const BitField& f) { return std::to_string(f.first) + ":" + std::to_string(f.width); }

json target_json(const CubinFile& file, const std::string& function, const sass::Instruction& ins, const BitField& f) {
  std::uint64_t lo, hi;
  read_word(file, function, ins.offset, lo, hi);
  std::uint8_t w[16];
  for (int i = 0; i < 8; ++i) {
    w[i] = static_cast<std::uint8_t>(lo >> (8 * i));
    w[8 + i] = static_cast<std::uint8_t>(hi >> (8 * i));
  }
  return json{{"offset", hex(ins.offset)}, {"text", ins.text()}, {"bits", field_text(f)}, {"original_value", get_field(w, f)}};
}

}  // namespace

json run_flip_experiment(const ExperimentConfig& cfg, const std::string& command_line) {
  if (cfg.nvdisasm.empty()) throw UsageError("the flip experiment selects instructions by disassembly: nvdisasm is required");
  check_run_config(cfg.run);
  if (cfg.field.width > 8) throw UsageError("--bits: the experiment sweeps every value; use a field of at most 8 bits");
  const CubinFile original = CubinFile::load(cfg.cubin);
  // A run that cannot happen (no driver, no GPU, no such --device) stops here, before any patched
  // cubin is written to --keep.
  DeviceRecord device;
  if (cfg.execute) device = probe_device_isolated(cfg.run, cfg.driver);
  original.text_section(cfg.function);
  const sass::Cubin dis = disassemble_bytes(original, cfg.nvdisasm);
  const sass::Function& fn = function_named(dis, cfg.function);
  const auto flipped = select_instructions(fn, cfg.match, -1, true);
  const auto stores = select_instructions(fn, cfg.control, -1, true);
  const BitField guard{12, 4};  // guard predicate 12-14 + negate 15: 0xF = @!PT, never executes

  std::vector<Variant> variants;
  for (const auto* st : stores) {
    Variant v;
    v.kind = "control";
    v.label = "control " + hex(st->offset) + " " + st->text() + " -> @!PT";
    v.patches.push_back({cfg.function, st->offset, guard, 0xF});
    v.targets.push_back(target_json(original, cfg.function, *st, guard));
    variants.push_back(v);
  }
  const std::uint64_t nvals = std::uint64_t(1) << cfg.field.width;
  for (const auto* ins : flipped) {
    const json t = target_json(original, cfg.function, *ins, cfg.field);
    for (std::uint64_t val = 0; val < nvals; ++val) {
      if (val == t["original_value"].get<std::uint64_t>()) continue;
      Variant v;
      v.kind = "flip";
      v.label = hex(ins->offset) + " " + ins->text() + " bits " + field_text(cfg.field) + " := " + std::to_string(val);
      v.patches.push_back({cfg.function, ins->offset, cfg.field, val});
      v.targets.push_back(t);
      variants.push_back(v);
    }
  }
  if (cfg.all_at_once && flipped.size() > 1) {
    for (std::uint64_t val = 0; val < nvals; ++val) {
      Variant v;
      v.kind = "flip_all";
      v.label = "all " + std::to_string(flipped.size()) + " matched, bits " + field_text(cfg.field) + " := " + std::to_string(val);
      for (const auto* ins : flipped) {
        v.patches.push_back({cfg.function, ins->offset, cfg.field, val});
        v.targets.push_back(target_json(original, cfg.function, *ins, cfg.field));
      }
      variants.push_back(v);
    }
  }

  json doc;
  doc["schema"] = kBitflipSchema;
  Provenance prov = make_provenance(command_line);
  prov.tools["nvdisasm"] = {cfg.nvdisasm, sass::tool_version(cfg.nvdisasm)};
  doc["provenance"] = divbench::to_json(prov);
  doc["cubin"] = {{"path", cfg.cubin},
                  {"sm", original.sm()},
                  {"abi_version", original.header().abi_version},
                  {"e_flags", hex(original.header().flags)},
                  {"function", cfg.function},
                  {"instructions", fn.instructions.size()},
                  {"producer", dis.producer},
                  {"toolkit", dis.toolkit}};
  doc["config"] = {{"match", cfg.match},        {"control", cfg.control},        {"bits", field_text(cfg.field)},
                   {"execute", cfg.execute},    {"threads", cfg.run.threads},    {"reps", cfg.run.reps},
                   {"spin_cap", cfg.run.spin_cap}, {"timeout_s", cfg.run.timeout_s}, {"device", cfg.run.device}};

  const std::vector<int> input = flip_test_input(cfg.run.threads);

  // Phase 1: patch and verify every variant (no GPU).
  json results = json::array();
  std::vector<std::vector<std::uint8_t>> images{original.bytes()};  // baseline first
  std::size_t verified_ok = 0, text_changed = 0;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    CubinFile patched = original;
    patched.set_name(original.name() + " (patched)");
    apply_patches(patched, v.patches);
    json r;
    r["kind"] = v.kind;
    r["label"] = v.label;
    r["targets"] = v.targets;
    r["value"] = v.patches.front().value;
    const VerifyReport vr = verify_patch(original, dis, patched, cfg.function, cfg.nvdisasm);
    r["verify"] = vr.to_json();
    if (vr.ok) ++verified_ok;
    if (!vr.text_changed.empty()) ++text_changed;
    if (!cfg.keep_dir.empty()) {
      const std::string path = cfg.keep_dir + "/" + cfg.function + "." + std::to_string(i) + "." + v.kind + ".cubin";
      write_file_bytes_atomic(path, patched.bytes());
      r["cubin"] = path;
    }
    if (!cfg.quiet)
      std::cerr << "[flip] patch " << (i + 1) << "/" << variants.size() << " " << v.label << ": "
                << (vr.ok ? "verified" : "VERIFY FAILED: " + vr.error) << std::endl;
    results.push_back(r);
    images.push_back(patched.bytes());
  }
  json summary = {{"variants", variants.size()},
                  {"verified", verified_ok},
                  {"variants_with_text_change", text_changed},
                  {"flipped_instructions", flipped.size()},
                  {"control_stores", stores.size()}};

  // Phase 2: run baseline, every variant, baseline again (drift), in isolated child processes.
  if (cfg.execute) {
    images.push_back(original.bytes());
    TrialResult baseline;
    std::size_t n_controls = 0, controls_changed = 0, n_flips = 0, flips_equal = 0, flips_completed = 0;
    auto on_result = [&](std::size_t idx, const TrialResult& t) {
      if (idx == 0) {
        baseline = t;
        const Comparison self = compare(baseline, baseline, input);
        json b = to_json(baseline);
        b["comparison"] = self.to_json();
        doc["device"] = divbench::to_json(device);
        doc["baseline"] = b;
        if (!cfg.quiet)
          std::cerr << "[flip] baseline: " << t.status << ", cycles " << self.cycles_median
                    << (self.matches_model ? ", matches the model" : ", DOES NOT MATCH THE MODEL") << std::endl;
        if (!baseline.completed())
          throw std::runtime_error("the unpatched kernel did not complete (" + baseline.status + ": " + baseline.error + ")");
        if (!self.matches_model)
          throw VerificationError("the unpatched kernel's output does not match the host model: runner or kernel is broken");
        return;
      }
      if (idx == images.size() - 1) {
        doc["baseline_end"] = compare(baseline, t, input).to_json();
        return;
      }
      json& r = results[idx - 1];
      const std::string& kind = variants[idx - 1].kind;
      const Comparison c = compare(baseline, t, input);
      json run = to_json(t);
      run.erase("device");
      // Keep the raw buffers only where they differ from the baseline (diagnosis, smaller files).
      if (c.output_equal) run.erase("out");
      if (t.exch == baseline.exch) run.erase("exch");
      r["run"] = run;
      r["comparison"] = c.to_json();
      const bool cycles_disabled = !t.cycles_warp0.empty() && t.cycles_warp0.back() == kCyclesSentinel;
      const bool changed =
          t.completed() && (!c.output_equal || !c.exchange_equal || cycles_disabled || t.exch != baseline.exch);
      r["observable_change"] = changed;
      if (kind == "control") {
        ++n_controls;
        if (changed) ++controls_changed;
      } else {
        ++n_flips;
        if (t.completed()) ++flips_completed;
        if (c.output_equal && c.exchange_equal) ++flips_equal;
      }
      if (!cfg.quiet) {
        std::string o = t.status;
        if (t.completed())
          o += std::string(c.output_equal ? ", output equal" : ", OUTPUT DIFFERS") +
               (c.exchange_equal ? "" : ", EXCHANGE DIFFERS") + ", cycles x" + std::to_string(c.cycles_ratio);
        else
          o += " " + t.error;
        std::cerr << "[flip] run " << idx << "/" << variants.size() << " " << variants[idx - 1].label << ": " << o
                  << std::endl;
      }
    };
    run_trials_isolated(images, cfg.run, cfg.driver, on_result);
    summary["positive_controls"] = n_controls;
    summary["positive_controls_changed_output"] = controls_changed;
    summary["positive_control_ok"] = n_controls > 0 && controls_changed == n_controls;
    summary["flips"] = n_flips;
    summary["flips_completed"] = flips_completed;
    summary["flips_output_and_exchange_equal"] = flips_equal;
    summary["baseline_cycles_median"] = compare(baseline, baseline, input).cycles_median;
  }
  doc["variants"] = results;
  doc["summary"] = summary;
  return doc;
}

}  // namespace divbench::cubin
