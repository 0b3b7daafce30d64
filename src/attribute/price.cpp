// The pricing stage of `divbench attribute` (attribute/price.hpp).
#include "divbench/attribute/price.hpp"

#include <algorithm>

#include "divbench/attribute/time_model.hpp"
#include "divbench/model/issue_cost.hpp"
#include "divbench/model/memory_cost.hpp"
#include "divbench/sass/loops.hpp"

namespace divbench::attribute {

namespace {

// Prices what the issue model cannot (waits on memory and on other blocks' producers, calls, returns,
// indirect branches) with the time warps spent at each pc (PC sampling): a sample stands for period x
// (resident warps per SM) warp-cycles, and each such instruction gets max(its model cycles, its measured
// cycles per pass). Returns {"warp_cycles_per_sample", ...} (with the scale the model-priced instructions
// imply, a cross-check) or null when the kernel has no sample.
bool measured_class(const sass::Instruction& ins, const model::IssueCost& c) {
  return c.scoreboard_wait || c.memory_wait || ins.base == "CALL" || ins.base == "RET" || ins.base == "BRX" ||
         ins.base == "JMX";
}

// The memory rule (model/memory_cost.hpp): a measured wait on a global load scales with the lanes of
// a pass as the memory probe's curve says (a gather; a coalesced load does not). The load's sectors
// per pass come from the counts' sectors column; without it (older recordings, a CUPTI without the
// metric) or without memory levels, nothing scales. The curves are those measured at the warps per SM
// nearest the kernel's resident warps. Returns {"scaled_instructions", "gathers", "levels": {level:
// instructions}, "curves_warps_per_sm"} or null.
json scale_load_waits(std::vector<model::IssueCost>& costs, const sass::Function& f, const FunctionCounts& counts,
                      const std::vector<model::MemoryLevelCost>& levels, double warps_per_sm) {
  if (!counts.has_sectors || levels.empty()) return nullptr;
  json levels_used = json::object();
  std::size_t scaled = 0, gathers = 0;
  int curve_warps = 0;
  for (std::size_t i = 0; i < f.instructions.size() && i < costs.size(); ++i) {
    if (!costs[i].memory_measured || costs[i].memory_producers.empty()) continue;  // producers imply memory_wait
    // Of the loads whose scoreboard reaches the wait, the one executed most often: the wait's usual
    // producer (a loop's load, not the load before the loop that set the same scoreboard once).
    double sectors = 0, lanes = 0;
    std::uint64_t passes = 0;
    for (std::size_t p : costs[i].memory_producers) {
      const PcCounts* c = counts.at(f.instructions[p].offset - f.start);
      if (!c || c->inst == 0 || c->sectors == 0 || c->inst <= passes) continue;
      passes = c->inst;
      sectors = double(c->sectors) / double(c->inst);
      lanes = double(c->thread_inst) / double(c->inst);
    }
    if (sectors <= 0) continue;
    costs[i].load = model::scale_load(levels, costs[i].cycles, sectors, lanes, warps_per_sm);
    if (!costs[i].load.level) continue;
    curve_warps = costs[i].load.level->warps_per_sm;
    ++scaled;
    gathers += costs[i].load.gather;
    levels_used[costs[i].load.level->level] = levels_used.value(costs[i].load.level->level, 0) + 1;
  }
  return json{{"scaled_instructions", scaled}, {"gathers", gathers}, {"levels", levels_used},
              {"curves_warps_per_sm", curve_warps ? json(curve_warps) : json(nullptr)}};
}

json price_waits(std::vector<model::IssueCost>& costs, const sass::Function& f, const FunctionCounts& counts,
                 const std::map<std::uint64_t, std::uint64_t>& samples, std::uint64_t period, double warps_per_sm) {
  double model_cycles = 0, model_samples = 0, all_samples = 0;
  for (std::size_t i = 0; i < f.instructions.size() && i < costs.size(); ++i) {
    const std::uint64_t pc = f.instructions[i].offset - f.start;
    const PcCounts* c = counts.at(pc);
    const auto s = samples.find(pc);
    const double n = s == samples.end() ? 0.0 : double(s->second);
    all_samples += n;
    if (!c || c->inst == 0 || measured_class(f.instructions[i], costs[i])) continue;
    model_cycles += double(c->inst) * costs[i].cycles;
    model_samples += n;
  }
  if (all_samples <= 0 || period == 0) return nullptr;
  // A sample stands for `period` cycles of the SM it came from, spent by one of its resident warps, so
  // for period x (resident warps) warp-cycles.
  const double per_sample = double(period) * warps_per_sm;
  std::size_t priced = 0;
  for (std::size_t i = 0; i < f.instructions.size() && i < costs.size(); ++i) {
    if (!measured_class(f.instructions[i], costs[i])) continue;
    const std::uint64_t pc = f.instructions[i].offset - f.start;
    const PcCounts* c = counts.at(pc);
    if (!c || c->inst == 0) continue;
    const auto s = samples.find(pc);
    const double measured = (s == samples.end() ? 0.0 : double(s->second)) * per_sample / double(c->inst);
    costs[i].memory_measured = true;
    costs[i].memory_cycles = std::max(0.0, measured - costs[i].cycles);
    costs[i].cycles += costs[i].memory_cycles;
    ++priced;
  }
  return json{{"warp_cycles_per_sample", per_sample},
              {"period_cycles", period},
              {"resident_warps_per_sm", warps_per_sm},
              {"samples", all_samples},
              {"measured_instructions", priced},
              // The cross-check: warp-cycles per sample implied by the instructions the model prices.
              {"model_cycles_per_sample", model_samples > 0 ? json(model_cycles / model_samples) : json(nullptr)}};
}

}  // namespace

json price(Outcome& out, const PriceInput& in) {
  json sampling = json::object();
  const double sms = in.counts.device.value("sms", 0) > 0 ? double(in.counts.device.value("sms", 0)) : 1.0;
  const double clock_hz = in.counts.device.value("clock_khz", 0) > 0 ? 1e3 * double(in.counts.device.value("clock_khz", 0)) : 0.0;
  std::vector<Machine> machines;
  for (std::size_t i = 0; i < out.counts.size(); ++i) {
    const FunctionCounts& fc = out.counts[i];
    // Resident warps per SM while it ran: from its launches' shapes (blocks an SM holds at once x warps
    // of a block, at most what a launch spreads over the SMs) when the library recorded them; else its
    // warps per launch over the SMs, at least 1 (an SM that ran none is never sampled) and at most the
    // SM's limit (64 on sm_70 and later but sm_75 and sm_86/89/120, which hold 32 or 48: taken from the
    // device when it says).
    const std::uint64_t warps = fc.at(0) ? fc.at(0)->inst : 0;
    const auto lit = in.counts.launches.find(fc.name);
    const double launches = lit != in.counts.launches.end() && lit->second ? double(lit->second) : 1.0;
    const double limit = in.counts.device.value("max_warps_per_sm", 64);
    double per_sm = std::clamp(double(warps) / launches / sms, 1.0, std::max(1.0, limit));
    const auto shape = in.counts.shapes.find(fc.name);
    const bool from_shape = shape != in.counts.shapes.end() && shape->second.resident_warps_per_sm(sms) > 0;
    if (from_shape) per_sm = std::min(std::max(1.0, limit), shape->second.resident_warps_per_sm(sms));
    machines.push_back(Machine{sms, per_sm, 4});
    if (in.pcs)
      if (const auto* samples = in.pcs->function(fc.crc, fc.name)) {
        json priced = price_waits(out.costs[i], *in.analyses[i]->function, fc, *samples, in.pcs->period_cycles, per_sm);
        if (!priced.is_null()) {
          priced["memory_rule"] = scale_load_waits(out.costs[i], *in.analyses[i]->function, fc, in.constants.memory_levels, per_sm);
          sampling[fc.name] = priced;
        }
      }
    out.kernels.push_back(attribute_kernel(out.tables[i], fc, *in.analyses[i]->function, out.costs[i], in.constants.divergent_path,
                                           in.constants.divergent_call_path));
  }
  // Time saved (attribute/time_model.hpp): every kernel, from its samples when the sampling run has them.
  for (std::size_t i = 0; i < out.kernels.size(); ++i) {
    const FunctionCounts& fc = out.counts[i];
    const sass::FunctionAnalysis& a = *in.analyses[i];
    const sass::Loops loops = sass::find_loops(a.cfg);
    std::vector<int> loop_of(a.function->instructions.size(), -1);
    for (std::size_t b = 0; b < a.cfg.blocks.size(); ++b) {
      const int l = loops.innermost(static_cast<int>(b));
      for (std::size_t j = a.cfg.blocks[b].first; j <= a.cfg.blocks[b].last && j < loop_of.size(); ++j) loop_of[j] = l;
    }
    SampledTime st;
    const SampledTime* sampled = nullptr;
    if (in.pcs)
      if (const auto* samples = in.pcs->function(fc.crc, fc.name)) {
        st.samples = samples;
        const auto stalls = in.pcs->stalls.find({fc.crc, fc.name});
        st.stalls = stalls != in.pcs->stalls.end() ? &stalls->second : nullptr;
        st.reasons = &in.pcs->reasons;
        st.period_cycles = in.pcs->period_cycles;
        sampled = &st;
      }
    out.times.push_back(predict_time(out.kernels[i], *a.function, out.costs[i], sampled, loop_of, machines[i], clock_hz));
    apply_time_saved(out.kernels[i], out.times.back(), machines[i]);
  }
  return sampling;
}

}  // namespace divbench::attribute
