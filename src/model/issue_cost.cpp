// Cycles of one warp-pass through each instruction (model/issue_cost.hpp).
#include "divbench/model/issue_cost.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "divbench/sass/cfg.hpp"
#include "divbench/sass/control_word.hpp"

namespace divbench::model {

namespace {

// Which instruction last set each scoreboard, on every path into each instruction (reaching
// definitions over the CFG): the memory accesses among them are the waiting instruction's producers.
void link_memory_producers(const sass::Function& f, const sass::Cfg& cfg, std::vector<IssueCost>& out) {
  using Setters = std::array<std::set<std::size_t>, 6>;
  const std::size_t n = cfg.blocks.size();
  std::vector<Setters> in(n), end(n);
  const auto run_block = [&](std::size_t b, Setters state, bool record) {
    const auto& block = cfg.blocks[b];
    for (std::size_t k = block.first; k <= block.last && k < f.instructions.size(); ++k) {
      const auto w = sass::scheduling_control(f, k);
      if (!w) continue;
      if (record)
        for (int sb = 0; sb < 6; ++sb)
          if (w->wait_mask & (1 << sb))
            for (std::size_t p : state[sb])
              if (is_memory_access(f.instructions[p].base) &&
                  std::find(out[k].memory_producers.begin(), out[k].memory_producers.end(), p) == out[k].memory_producers.end()) {
                out[k].memory_producers.push_back(p);
                out[k].memory_wait = true;  // also a wait on a load of another block (a loop's, carried round the back edge)
              }
      if (w->write_barrier >= 0 && w->write_barrier < 6) state[w->write_barrier] = {k};
    }
    return state;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t b = 0; b < n; ++b) {
      Setters s;
      for (int p : cfg.blocks[b].pred)
        for (int sb = 0; sb < 6; ++sb) s[sb].insert(end[p][sb].begin(), end[p][sb].end());
      in[b] = s;
      Setters e = run_block(b, s, false);
      if (e != end[b]) end[b] = std::move(e), changed = true;
    }
  }
  for (std::size_t b = 0; b < n; ++b) run_block(b, in[b], true);
}

}  // namespace

std::vector<IssueCost> issue_costs(const sass::Function& f, const CostConstants& c) {
  const double B = c.taken_branch.value_or(0);
  const double W = c.variable_latency.value_or(0);
  const sass::Cfg cfg = sass::build_cfg(f);
  std::vector<IssueCost> out(f.instructions.size());
  for (const auto& block : cfg.blocks) {
    // Per scoreboard: when it is released (relative issue time in this block), and by a memory access.
    std::array<double, 6> ready{};
    std::array<bool, 6> by_memory{};
    std::array<bool, 6> set{};
    double t = 0;
    for (std::size_t k = block.first; k <= block.last && k < f.instructions.size(); ++k) {
      const auto& ins = f.instructions[k];
      IssueCost& cost = out[k];
      const auto w = sass::scheduling_control(f, k);
      if (!w) {
        cost.no_control = true;
        cost.cycles = 1 + (sass::is_branch(ins) ? B : 0.0);
        t += cost.cycles;
        continue;
      }
      double issue = t;
      cost.scoreboard_wait = (w->wait_mask & 0x3f) != 0;
      for (int b = 0; b < 6; ++b) {
        if (!(w->wait_mask & (1 << b)) || !set[b]) continue;
        if (by_memory[b]) cost.memory_wait = true;
        else issue = std::max(issue, ready[b]);
      }
      if (w->write_barrier >= 0 && w->write_barrier < 6) {
        set[w->write_barrier] = true;
        by_memory[w->write_barrier] = is_memory_access(ins.base);
        ready[w->write_barrier] = issue + (by_memory[w->write_barrier] ? 0.0 : W);
      }
      const double stall = std::max(1, w->stall);
      cost.cycles = (issue - t) + stall + (sass::is_branch(ins) ? B : 0.0);
      t = issue + stall + (sass::is_branch(ins) ? B : 0.0);
    }
  }
  link_memory_producers(f, cfg, out);
  // Code the CFG does not reach from the function's entries (a subroutine called only through a
  // register, CALL.REL.NOINC R8): its stall fields alone, and every scoreboard wait left to measurement.
  for (std::size_t k = 0; k < f.instructions.size() && k < cfg.block_of_instruction.size(); ++k) {
    if (cfg.block_of_instruction[k] >= 0) continue;
    const auto w = sass::scheduling_control(f, k);
    const double branch = sass::is_branch(f.instructions[k]) ? B : 0.0;
    if (!w) {
      out[k].no_control = true;
      out[k].cycles = 1 + branch;
      continue;
    }
    out[k].cycles = std::max(1, w->stall) + branch;
    out[k].scoreboard_wait = (w->wait_mask & 0x3f) != 0;
  }
  // A call's round trip costs more than its instruction's issue (measured: CostConstants::call_round_trip),
  // added to the CALL's own cycles after the block timelines (the instructions after it wait as before).
  if (c.call_round_trip)
    for (std::size_t k = 0; k < f.instructions.size() && k < out.size(); ++k)
      if (f.instructions[k].base == "CALL") out[k].cycles += *c.call_round_trip;
  return out;
}

}  // namespace divbench::model
