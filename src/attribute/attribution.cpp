// Joining the branch table with the counts and pricing each region (attribute/attribution.hpp).
#include "divbench/attribute/attribution.hpp"

#include <algorithm>
#include <cstdio>

#include "divbench/core/errors.hpp"

namespace divbench::attribute {

namespace {

const PcCounts kZero{};

std::uint64_t at_thread(const FunctionCounts& c, const sass::Function& f, std::size_t i);

const PcCounts& counts_at(const FunctionCounts& c, const sass::Function& f, std::size_t i) {
  const PcCounts* p = c.at(f.instructions[i].offset - f.start);
  return p ? *p : kZero;
}

std::uint64_t at_thread(const FunctionCounts& c, const sass::Function& f, std::size_t i) {
  return counts_at(c, f, i).thread_inst;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

BranchCost cost_branch(const StaticBranch& b, const FunctionCounts& counts, const sass::Function& f,
                       const std::vector<model::IssueCost>& costs, std::optional<double> ideal_lanes) {
  BranchCost r;
  r.branch = &b;
  const PcCounts& at = counts_at(counts, f, b.index);
  r.executions = at.inst;
  r.divergent = at.divergent;
  r.uniform = at.uniform;
  if (r.executions == 0) return r;
  // divergent + uniform <= executions, without the sum (it may pass 2^64-1 and wrap).
  if (!b.indirect && (r.divergent > r.executions || r.uniform > r.executions - r.divergent))
    throw UsageError(counts.origin + " impossible counts at the two-way branch at pc " + std::to_string(b.pc) + " of " +
                     counts.name + ": divergent " + std::to_string(r.divergent) + " + uniform " + std::to_string(r.uniform) +
                     " targets exceed its " + std::to_string(r.executions) + " executions");
  r.active_before = double(at.thread_inst) / double(at.inst);
  if (!b.indirect) r.paths_mean = 1.0 + double(r.divergent) / double(r.executions);
  // The ideal lanes: those at the branch, or for a loop branch those that entered the loop (the lanes at
  // its exit average over iterations as lanes leave, which would price a divergent loop at zero).
  double ideal = r.active_before;
  if (b.loop) {
    for (std::size_t e : b.entries) {
      const PcCounts& c = counts_at(counts, f, e);
      r.entry_warps += c.inst;
      r.entry_threads += c.thread_inst;
    }
    if (r.entry_warps) {
      r.active_entry = double(r.entry_threads) / double(r.entry_warps);
      ideal = *r.active_entry;
    }
  }
  if (ideal_lanes && *ideal_lanes > 0) ideal = *ideal_lanes;
  r.ideal_lanes = ideal;
  for (std::size_t i : b.region) {
    const PcCounts& c = counts_at(counts, f, i);
    r.region_warp_instructions += c.inst;
    r.region_thread_instructions += c.thread_inst;
    if (c.inst == 0) continue;
    const double excess = double(c.inst) - double(c.thread_inst) / ideal;
    r.excess_warp_instructions += excess;
    // A gather's passes at the ideal lanes are fuller and each costs more (model/memory_cost.hpp): the
    // ideal T / A passes at ratio x the pass measured now.
    const double fuller = double(c.thread_inst) / ideal * costs[i].cycles *
                          (costs[i].load.ratio(double(c.thread_inst) / double(c.inst), ideal) - 1.0);
    r.cycles_lost += excess * costs[i].cycles - fuller;
    if (costs[i].memory_wait) {
      if (costs[i].memory_measured) r.memory_wait_cycles_lost += std::max(0.0, excess * costs[i].memory_cycles - fuller);
      else r.lower_bound = true;
    }
  }
  if (r.region_warp_instructions) {
    r.active_inside = double(r.region_thread_instructions) / double(r.region_warp_instructions);
    r.region_efficiency = *r.active_inside / 32.0;
  }
  if (b.ipdom_index) {
    const PcCounts& c = counts_at(counts, f, *b.ipdom_index);
    if (c.inst) r.active_after = double(c.thread_inst) / double(c.inst);
  }
  return r;
}

KernelAttribution attribute_kernel(const FunctionBranches& table, const FunctionCounts& counts, const sass::Function& f,
                                   const std::vector<model::IssueCost>& costs, std::optional<double> divergent_path,
                                   std::optional<double> divergent_call_path) {
  KernelAttribution k;
  k.table = &table;
  k.counts = &counts;
  if (const PcCounts* first = counts.at(0)) k.warps = first->inst;
  for (const auto& [pc, c] : counts.pcs) {
    k.inst += c.inst;
    k.thread_inst += c.thread_inst;
    k.divergent += c.divergent;
  }
  for (std::size_t i = 0; i < f.instructions.size() && i < costs.size(); ++i)
    if (const PcCounts* c = counts.at(f.instructions[i].offset - f.start)) {
      k.modelled_warp_cycles += double(c->inst) * costs[i].cycles;
      if (f.instructions[i].base == "CALL") k.calls_executed += c->inst;
    }
  k.branches.reserve(table.branches.size());
  for (const auto& b : table.branches) k.branches.push_back(cost_branch(b, counts, f, costs));
  k.inst_issued = k.inst;
  for (const auto& c : k.branches)
    if (c.branch->indirect) k.inst_issued += c.divergent;
  // The divergence proper: D per extra path of the branch and of every branch its region holds.
  for (auto& c : k.branches) {
    if (c.executions == 0) continue;
    if (c.branch->indirect && c.branch->ipdom_index) {
      const std::uint64_t after = counts_at(counts, f, *c.branch->ipdom_index).inst;
      c.extra_paths = after > c.executions ? double(after - c.executions) : 0.0;
    } else {
      c.extra_paths = double(c.divergent);
    }
  }
  // Indirect calls share their region (every subroutine: the callees of one call are not known from the
  // code), so the calls of a function are one group: its loss is counted once, at its representative (the
  // first call that made an extra path), its region priced against the lanes of all its calls together
  // (sum of thread / sum of warp executions at them), and its path overhead holds every call's extra paths.
  std::vector<std::size_t> calls;
  for (std::size_t i = 0; i < k.branches.size(); ++i)
    if (k.branches[i].branch->call && k.branches[i].executions && !k.branches[i].branch->region.empty()) calls.push_back(i);
  std::optional<std::size_t> call_rep;
  if (calls.size() > 1) {
    std::uint64_t warps = 0, threads = 0;
    for (std::size_t i : calls) {
      warps += counts_at(counts, f, k.branches[i].branch->index).inst;
      threads += counts_at(counts, f, k.branches[i].branch->index).thread_inst;
    }
    call_rep = calls.front();
    for (std::size_t i : calls)
      if (k.branches[i].extra_paths > 0) {
        call_rep = i;
        break;
      }
    BranchCost& rep = k.branches[*call_rep];
    const double extra = rep.extra_paths;
    rep = cost_branch(*rep.branch, counts, f, costs, double(threads) / double(warps));
    rep.extra_paths = extra;
    for (std::size_t i : calls)
      if (i != *call_rep) k.branches[i].counted_in = &k.branches[*call_rep];
  }
  const auto per_path = [&](const BranchCost& o) -> double {
    if (o.branch->call && divergent_call_path) return *divergent_call_path;
    return divergent_path ? *divergent_path : 0.0;
  };
  if ((divergent_path && *divergent_path > 0) || (divergent_call_path && *divergent_call_path > 0))
    for (auto& c : k.branches) {
      if (c.executions == 0) continue;
      double cycles = 0;
      for (const auto& o : k.branches) {
        const bool grouped_call = call_rep && &c == &k.branches[*call_rep] && o.counted_in == &c;
        if (&o == &c || grouped_call || std::binary_search(c.branch->region.begin(), c.branch->region.end(), o.branch->index))
          cycles += o.extra_paths * per_path(o);
      }
      c.path_overhead_cycles = cycles;
      c.cycles_lost += c.path_overhead_cycles;
    }
  // Loops: the loop branches whose regions hold each other are the exits of one loop. A divergent loop
  // is counted once, at its representative: a divergent exit with the largest region (then lowest pc).
  const auto holds_both = [](const StaticBranch& a, const StaticBranch& b) {
    return std::binary_search(a.region.begin(), a.region.end(), b.index) &&
           std::binary_search(b.region.begin(), b.region.end(), a.index);
  };
  std::vector<char> grouped(k.branches.size(), 0);
  for (std::size_t i = 0; i < k.branches.size(); ++i) {
    const BranchCost& c = k.branches[i];
    if (grouped[i] || !c.branch->loop || c.divergent == 0) continue;
    std::vector<std::size_t> members;
    for (std::size_t j = 0; j < k.branches.size(); ++j)
      if (!grouped[j] && k.branches[j].branch->loop && (j == i || holds_both(*c.branch, *k.branches[j].branch)))
        members.push_back(j);
    std::size_t rep = i;
    for (std::size_t j : members)
      if (k.branches[j].divergent != 0 && k.branches[j].branch->region.size() > k.branches[rep].branch->region.size())
        rep = j;
    LoopCost loop;
    loop.representative = &k.branches[rep];
    for (std::size_t j : members) {
      grouped[j] = 1;
      loop.exits.push_back(&k.branches[j]);
      if (j != rep) k.branches[j].counted_in = &k.branches[rep];
    }
    const BranchCost& r = k.branches[rep];
    loop.entry_warps = r.entry_warps;
    loop.entry_threads = r.entry_threads;
    if (r.entry_warps) loop.trips_per_warp_entry = double(r.executions) / double(r.entry_warps);
    if (r.entry_threads) loop.trips_per_lane = double(at_thread(counts, f, r.branch->index)) / double(r.entry_threads);
    k.loops.push_back(std::move(loop));
  }
  // No negative cost is written: a branch's cycles lost are a sum of differences (issue minus ideal, waits
  // scaled by lanes), and where the model's terms do not hold (a memory curve that rises faster than the
  // lanes, counts without launch counts) a term can fall below 0. Each is clamped at 0 here, and the
  // clamped amount kept (clamped_negative_cycles) so that the document says where the model did not hold.
  for (auto& c : k.branches) {
    for (double* v : {&c.cycles_lost, &c.memory_wait_cycles_lost, &c.path_overhead_cycles})
      if (*v < 0) {
        c.clamped_negative_cycles += *v;
        *v = 0;
      }
  }
  // The kernel's total counts each divergent branch once: one that a divergent branch's region holds
  // (and that does not hold it back, as two exits of one loop do) is already inside that region, and
  // the exits of one loop are counted at their representative.
  for (const auto& c : k.branches) {
    if (c.divergent == 0 || c.counted_in) continue;
    bool inside = false;
    for (const auto& o : k.branches) {
      if (&o != &c && o.divergent != 0 && region_holds(*o.branch, *c.branch)) inside = true;
    }
    if (!inside) k.cycles_lost += c.cycles_lost;
  }
  return k;
}

const LoopCost* loop_of(const KernelAttribution& k, const BranchCost& b) {
  for (const auto& l : k.loops)
    for (const BranchCost* e : l.exits)
      if (e == &b) return &l;
  return nullptr;
}

std::string recovery_hint(const BranchCost& c, const LoopCost* loop) {
  char buf[320];
  if (loop && loop->trips_per_warp_entry && loop->trips_per_lane) {
    std::snprintf(buf, sizeof buf,
                  "divergent loop: a warp runs %.3g trips per entry, its lanes %.3g on average (the trip-count spread "
                  "within warps); sorting or binning work by trip count recovers up to this loss",
                  *loop->trips_per_warp_entry, *loop->trips_per_lane);
    return buf;
  }
  if (c.branch->indirect)
    return "indirect branch (switch or call): grouping work by case, so that a warp's lanes take the same target, "
           "recovers up to this loss";
  // Short and run through at most once per side: a region that loops (a short loop body run many
  // times per execution: chase_if's 7 instructions made 12 dependent loads) is not one for a select.
  if (c.branch->region.size() <= 8 && c.region_warp_instructions <= 2 * c.branch->region.size() * c.executions)
    return "short region (" + std::to_string(c.branch->region.size()) +
           " instructions): predication (both sides computed, a select) removes the branch";
  return "two-way branch: grouping work so that a warp's lanes take the same side (sorting, binning, or warp-level "
         "task reassignment) recovers up to this loss";
}

json to_json(const BranchCost& c) {
  json j = to_json(*c.branch);
  j["executions"] = c.executions;
  j["divergent_executions"] = c.divergent;
  j["uniform_executions"] = c.uniform;
  // Paths per execution of a two-way branch: 1 (uniform) or 2 (divergent) — exact from the counts.
  if (c.paths_mean)
    j["paths_per_execution"] = json{{"1", c.executions - c.divergent}, {"2", c.divergent}, {"mean", *c.paths_mean}};
  else
    j["paths_per_execution"] = nullptr;
  j["active_lanes"] = json{{"before", c.executions ? json(c.active_before) : json(nullptr)},
                           {"entry", opt(c.active_entry)},
                           {"inside", opt(c.active_inside)},
                           {"after", opt(c.active_after)}};
  if (c.branch->loop) j["loop_entries"] = json{{"warps", c.entry_warps}, {"threads", c.entry_threads}};
  j["region_warp_instructions"] = c.region_warp_instructions;
  j["region_thread_instructions"] = c.region_thread_instructions;
  j["region_thread_instruction_efficiency"] = opt(c.region_efficiency);
  j["excess_warp_instructions"] = c.excess_warp_instructions;
  j["cycles_lost"] = c.cycles_lost;
  j["cycles_lost_is_lower_bound"] = c.lower_bound;
  j["memory_wait_cycles_lost"] = c.memory_wait_cycles_lost;
  j["extra_paths"] = c.extra_paths;
  j["path_overhead_cycles"] = c.path_overhead_cycles;
  j["counted_in"] = c.counted_in ? json(c.counted_in->branch->pc) : json(nullptr);
  if (c.clamped_negative_cycles < 0) j["clamped_negative_cycles"] = c.clamped_negative_cycles;
  j["predicted_time_saved_share"] = opt(c.time_saved_share);
  j["predicted_time_saved_s"] = opt(c.time_saved_s);
  return j;
}

json to_json(const KernelAttribution& k) {
  json br = json::array();
  for (const auto& c : k.branches) {
    json j = to_json(c);
    j["cycles_lost_share_of_kernel"] = k.modelled_warp_cycles > 0 ? json(c.cycles_lost / k.modelled_warp_cycles) : json(nullptr);
    j["recovery"] = c.divergent ? json(recovery_hint(c, loop_of(k, c))) : json(nullptr);
    br.push_back(std::move(j));
  }
  json loops = json::array();
  for (const auto& l : k.loops) {
    json exits = json::array();
    for (const BranchCost* e : l.exits) exits.push_back(e->branch->pc);
    loops.push_back(json{{"pc", l.representative->branch->pc},
                         {"source", l.representative->branch->source.empty() ? json(nullptr) : json(l.representative->branch->source)},
                         {"exits", exits},
                         {"entries", json{{"warps", l.entry_warps}, {"threads", l.entry_threads}}},
                         {"active_lanes_entry", opt(l.representative->active_entry)},
                         {"trips_per_warp_entry", opt(l.trips_per_warp_entry)},
                         {"trips_per_lane", opt(l.trips_per_lane)},
                         {"region_thread_instruction_efficiency", opt(l.representative->region_efficiency)},
                         {"cycles_lost", l.representative->cycles_lost},
                         {"predicted_time_saved_share", opt(l.representative->time_saved_share)},
                         {"predicted_time_saved_s", opt(l.representative->time_saved_s)},
                         {"recovery", recovery_hint(*l.representative, &l)}});
  }
  return json{{"name", k.table->name},
              {"arch", "sm_" + std::to_string(k.table->sm)},
              {"warps", k.warps},
              {"inst_executed", k.inst},
              {"inst_issued", k.inst_issued},
              {"thread_inst_executed", k.thread_inst},
              {"thread_inst_per_inst", k.inst ? json(double(k.thread_inst) / double(k.inst)) : json(nullptr)},
              {"branch_targets_threads_divergent", k.divergent},
              {"cycles_lost", k.cycles_lost},
              {"cycles_lost_per_warp", k.warps ? json(k.cycles_lost / double(k.warps)) : json(nullptr)},
              {"modelled_warp_cycles", k.modelled_warp_cycles},
              {"calls_executed", k.calls_executed},
              {"cycles_lost_share_of_kernel", k.modelled_warp_cycles > 0 ? json(k.cycles_lost / k.modelled_warp_cycles) : json(nullptr)},
              {"predicted_time_saved_share", opt(k.time_saved_share)},
              {"predicted_time_saved_s", opt(k.time_saved_s)},
              {"resident_warps_per_sm", opt(k.resident_warps_per_sm)},
              {"loops", loops},
              {"branches", br}};
}

}  // namespace divbench::attribute
