// The time model of `divbench attribute` (attribute/time_model.hpp).
#include "divbench/attribute/time_model.hpp"

#include <algorithm>
#include <cmath>

#include "divbench/sass/cfg.hpp"

namespace divbench::attribute {

namespace {

const PcCounts* counts_of(const FunctionCounts& c, const sass::Function& f, std::size_t i) {
  return c.at(f.instructions[i].offset - f.start);
}

// Control instructions are no lane's work: a predicated-off lane at one is not idle in the body.
bool is_control(const sass::Instruction& ins) {
  return sass::is_branch(ins) || ins.control_flow || ins.base == "CALL" || ins.base == "RET" || ins.base == "EXIT" ||
         ins.base == "BSYNC" || ins.base == "BSSY" || ins.base == "WARPSYNC" || ins.base == "BREAK";
}

json saved_json(const TimeSaved& s) {
  return json{{"share", s.share}, {"seconds", s.seconds ? json(*s.seconds) : json(nullptr)}};
}

}  // namespace

PassKind pass_kind(const std::string& reason) {
  const auto ends = [&](const std::string& s) {
    return reason.size() >= s.size() && reason.compare(reason.size() - s.size(), s.size(), s) == 0;
  };
  if (ends("_not_issued") || reason.find("stalled_") == std::string::npos) return PassKind::Ignored;
  const std::string r = reason.substr(reason.find("stalled_") + 8);
  if (r == "selected") return PassKind::Issue;
  if (r == "not_selected" || r == "dispatch_stall" || r == "math_pipe_throttle" || r == "mio_throttle" ||
      r == "lg_throttle" || r == "tex_throttle")
    return PassKind::Contention;
  return PassKind::Wait;
}

std::vector<PassTime> pass_times(const sass::Function& f, const FunctionCounts& counts,
                                 const std::vector<model::IssueCost>& costs, const SampledTime* sampled,
                                 double resident_warps_per_sm) {
  std::vector<PassTime> out(f.instructions.size());
  const bool have = sampled && sampled->samples && sampled->period_cycles > 0;
  const double per_sample = have ? double(sampled->period_cycles) * std::max(1.0, resident_warps_per_sm) : 0.0;
  for (std::size_t i = 0; i < f.instructions.size(); ++i) {
    const PcCounts* c = counts_of(counts, f, i);
    const double w = c ? double(c->inst) : 0.0;
    PassTime& t = out[i];
    const double cycles = i < costs.size() ? costs[i].cycles : 1.0;
    if (!have) {
      t.issue = w;
      t.wait = w * std::max(0.0, cycles - 1.0);
      continue;
    }
    const std::uint64_t pc = f.instructions[i].offset - f.start;
    const auto s = sampled->samples->find(pc);
    const double n = s == sampled->samples->end() ? 0.0 : double(s->second);
    if (n <= 0) continue;
    // The pc's samples split as its reasons say (the reasons' own sum, twins excluded, is the share).
    double issue = 0, contention = 0, wait = 0;
    if (sampled->stalls && sampled->reasons)
      if (const auto st = sampled->stalls->find(pc); st != sampled->stalls->end())
        for (const auto& [r, k] : st->second) {
          if (r >= sampled->reasons->size()) continue;
          switch (pass_kind((*sampled->reasons)[r])) {
            case PassKind::Issue: issue += double(k); break;
            case PassKind::Contention: contention += double(k); break;
            case PassKind::Wait: wait += double(k); break;
            case PassKind::Ignored: break;
          }
        }
    if (issue + contention + wait <= 0) wait = 1;  // samples without reasons: waiting
    const double split = issue + contention + wait;
    t.issue = n * per_sample * issue / split;
    t.contention = n * per_sample * contention / split;
    t.wait = n * per_sample * wait / split;
    if (i < costs.size() && costs[i].memory_measured) t.memory_wait = std::min(t.wait, w * costs[i].memory_cycles);
  }
  return out;
}

SmBounds sm_bounds(const std::vector<PassTime>& t, const FunctionCounts& counts, const sass::Function& f,
                   const std::vector<double>& scale, const std::vector<double>& memory_ratio, const Machine& m) {
  double warp_inst = 0, warp_inst_left = 0, issue = 0, wait = 0, contention = 0;
  for (std::size_t i = 0; i < t.size() && i < f.instructions.size(); ++i) {
    const PcCounts* c = counts_of(counts, f, i);
    const double w = c ? double(c->inst) : 0.0;
    const double s = i < scale.size() ? scale[i] : 1.0;
    const double r = i < memory_ratio.size() ? memory_ratio[i] : 1.0;
    warp_inst += w;
    warp_inst_left += w * s;
    issue += t[i].issue * s;
    wait += (t[i].wait - t[i].memory_wait) * s + t[i].memory_wait * s * r;
    contention += t[i].contention;
  }
  if (warp_inst > 0) contention *= warp_inst_left / warp_inst;
  const double sms = std::max(1.0, m.sms);
  return SmBounds{warp_inst_left / (double(std::max(1, m.schedulers_per_sm)) * sms),
                  (issue + wait + contention) / (std::max(1.0, m.resident_warps_per_sm) * sms)};
}

double sm_cycles(const std::vector<PassTime>& t, const FunctionCounts& counts, const sass::Function& f,
                 const std::vector<double>& scale, const std::vector<double>& memory_ratio, const Machine& m) {
  return sm_bounds(t, counts, f, scale, memory_ratio, m).cycles();
}

void scale_region(const BranchCost& b, const FunctionCounts& counts, const sass::Function& f, std::vector<double>& scale,
                  std::vector<double>& memory_ratio, const std::vector<model::IssueCost>& costs) {
  if (b.executions == 0 || b.ideal_lanes <= 0) return;
  for (std::size_t i : b.branch->region) {
    if (i >= scale.size()) continue;
    const PcCounts* c = counts_of(counts, f, i);
    if (!c || c->inst == 0) continue;
    const double w = double(c->inst), th = double(c->thread_inst);
    const double ideal = std::clamp(th / b.ideal_lanes, th / 32.0, w);
    scale[i] = std::min(scale[i], ideal / w);
    if (i < costs.size() && i < memory_ratio.size())
      memory_ratio[i] = costs[i].load.ratio(th / w, std::min(32.0, b.ideal_lanes));
  }
}

std::size_t scale_predicated_loops(const KernelAttribution& k, const sass::Function& f, const std::vector<int>& loop_of,
                                   std::vector<double>& scale) {
  std::vector<char> in_region(f.instructions.size(), 0);
  for (const auto& b : k.branches)
    if (b.divergent > 0)
      for (std::size_t i : b.branch->region)
        if (i < in_region.size()) in_region[i] = 1;
  std::map<int, bool> held;  // loop -> some instruction of it lies in a divergent region
  for (std::size_t i = 0; i < loop_of.size() && i < in_region.size(); ++i)
    if (loop_of[i] >= 0) held[loop_of[i]] = held[loop_of[i]] || in_region[i];
  std::size_t n = 0;
  for (std::size_t i = 0; i < loop_of.size() && i < f.instructions.size() && i < scale.size(); ++i) {
    if (loop_of[i] < 0 || held[loop_of[i]]) continue;
    const sass::Instruction& ins = f.instructions[i];
    if (!ins.guarded() || sass::is_uniform_predicate(ins.guard) || is_control(ins)) continue;
    const PcCounts* c = counts_of(*k.counts, f, i);
    if (!c || c->thread_inst == 0 || c->pred_on >= c->thread_inst) continue;
    scale[i] = std::min(scale[i], double(c->pred_on) / double(c->thread_inst));
    ++n;
  }
  return n;
}

KernelTime predict_time(const KernelAttribution& k, const sass::Function& f, const std::vector<model::IssueCost>& costs,
                        const SampledTime* sampled, const std::vector<int>& loop_of, const Machine& m, double clock_hz) {
  KernelTime out;
  const FunctionCounts& counts = *k.counts;
  const std::vector<PassTime> t = pass_times(f, counts, costs, sampled, m.resident_warps_per_sm);
  out.from_samples = sampled && sampled->samples && sampled->period_cycles > 0;
  for (const auto& p : t) {
    out.issue += p.issue;
    out.contention += p.contention;
    out.wait += p.wait;
  }
  const std::size_t n = f.instructions.size();
  const std::vector<double> ones(n, 1.0);
  const SmBounds as_run = sm_bounds(t, counts, f, ones, ones, m);
  out.sm_cycles = as_run.cycles();
  out.issue_bound_cycles = as_run.issue_bound;
  out.residency_cycles = as_run.residency;
  if (out.from_samples) {
    double s = 0;
    for (const auto& [pc, k2] : *sampled->samples) s += double(k2);
    out.measured_sm_cycles = s * double(sampled->period_cycles) / std::max(1.0, m.sms);
    if (clock_hz > 0) out.measured_s = *out.measured_sm_cycles / clock_hz;
  }
  const auto saved = [&](const std::vector<double>& scale, const std::vector<double>& ratio) {
    TimeSaved r;
    if (out.sm_cycles <= 0) return r;
    r.share = std::clamp(1.0 - sm_cycles(t, counts, f, scale, ratio, m) / out.sm_cycles, 0.0, 1.0);
    if (out.measured_s) r.seconds = r.share * *out.measured_s;
    return r;
  };
  // Per counted branch: its region alone.
  out.branches.resize(k.branches.size());
  std::vector<double> all(n, 1.0), all_ratio(n, 1.0);
  for (std::size_t b = 0; b < k.branches.size(); ++b) {
    const BranchCost& c = k.branches[b];
    if (c.divergent == 0 && c.extra_paths <= 0) continue;
    if (c.counted_in) continue;
    std::vector<double> scale(n, 1.0), ratio(n, 1.0);
    scale_region(c, counts, f, scale, ratio, costs);
    out.branches[b] = saved(scale, ratio);
    scale_region(c, counts, f, all, all_ratio, costs);
  }
  {
    std::vector<double> scale(n, 1.0);
    out.predicated_instructions = scale_predicated_loops(k, f, loop_of, scale);
    out.predicated = saved(scale, std::vector<double>(n, 1.0));
    for (std::size_t i = 0; i < n; ++i) all[i] = std::min(all[i], scale[i]);
  }
  out.kernel = saved(all, all_ratio);
  return out;
}

json to_json(const KernelTime& t) {
  return json{{"model", "issue vs wait: SM time = max(issue bound, residency / resident warps); docs/attribute.md \"Time saved\""},
              {"from_samples", t.from_samples},
              {"sm_cycles", t.sm_cycles},
              {"issue_bound_sm_cycles", t.issue_bound_cycles},
              {"residency_sm_cycles", t.residency_cycles},
              {"measured_sm_cycles", t.measured_sm_cycles ? json(*t.measured_sm_cycles) : json(nullptr)},
              {"measured_s", t.measured_s ? json(*t.measured_s) : json(nullptr)},
              {"warp_cycles", json{{"issue", t.issue}, {"contention", t.contention}, {"wait", t.wait}}},
              {"predicated_loops", json{{"instructions", t.predicated_instructions},
                                        {"predicted_time_saved_share", t.predicated.share},
                                        {"predicted_time_saved_s", t.predicated.seconds ? json(*t.predicated.seconds) : json(nullptr)}}},
              {"kernel", saved_json(t.kernel)}};
}

void apply_time_saved(KernelAttribution& k, const KernelTime& t, const Machine& m) {
  k.time_saved_share = t.kernel.share;
  k.time_saved_s = t.kernel.seconds;
  k.resident_warps_per_sm = m.resident_warps_per_sm;
  for (std::size_t b = 0; b < k.branches.size() && b < t.branches.size(); ++b)
    if (t.branches[b]) {
      k.branches[b].time_saved_share = t.branches[b]->share;
      k.branches[b].time_saved_s = t.branches[b]->seconds;
    }
}

}  // namespace divbench::attribute
