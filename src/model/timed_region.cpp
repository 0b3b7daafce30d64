// The timed region and the clock64 bracketing check (timed_region.hpp).
#include "divbench/model/timed_region.hpp"

#include <algorithm>
#include <set>

namespace divbench::model {

using namespace divbench::sass;  // the analyzer this reads

namespace {

void add_block(const Cfg& cfg, int b, std::set<std::size_t>& out) {
  for (std::size_t k = cfg.blocks[b].first; k <= cfg.blocks[b].last; ++k) out.insert(k);
}

// Blocks of loops that are work (not timer retry loops).
std::vector<char> work_blocks(const FunctionAnalysis& a, const Loops& loops) {
  std::vector<char> w(a.cfg.blocks.size(), 0);
  for (const auto& l : loops.loops)
    if (!is_timer_retry_loop(*a.function, a.cfg, l))
      for (int b : l.blocks) w[b] = 1;
  return w;
}

bool side_has_work(const FunctionAnalysis& a, const std::vector<char>& work, const std::vector<int>& blocks) {
  for (int b : blocks) {
    if (work[b]) return true;
    for (std::size_t k = a.cfg.blocks[b].first; k <= a.cfg.blocks[b].last; ++k)
      if (is_call(a.function->instructions[k])) return true;
  }
  return false;
}

// Dominators from the function's own entry (its first instruction); empty when that is unreachable.
std::vector<int> entry_dominators(const FunctionAnalysis& a) {
  if (a.function->instructions.empty() || a.cfg.block_of_instruction[0] < 0) return {};
  return dominators_from(a.cfg, a.cfg.block_of_instruction[0]);
}

}  // namespace

TimedRegion timed_region(const FunctionAnalysis& a, const Loops& loops) {
  TimedRegion r;
  const Function& f = *a.function;
  const Cfg& cfg = a.cfg;
  const auto dom = entry_dominators(a);
  if (dom.empty()) return r;
  auto from_entry = [&](int b) { return b >= 0 && dom[b] >= 0; };
  std::set<std::size_t> in;
  const auto work = work_blocks(a, loops);
  for (std::size_t l = 0; l < loops.loops.size(); ++l) {
    if (!from_entry(loops.loops[l].header) || is_timer_retry_loop(f, cfg, loops.loops[l])) continue;
    r.loops.push_back(static_cast<int>(l));
    for (int b : loops.loops[l].blocks) add_block(cfg, b, in);
  }
  for (std::size_t i = 0; i < f.instructions.size(); ++i) {
    const int b = cfg.block_of_instruction[i];
    if (!from_entry(b) || !is_potentially_divergent(f.instructions[i]) || i != cfg.blocks[b].last) continue;
    const BranchSides s = branch_sides(a, i);
    if (!work[b] && !side_has_work(a, work, s.fallthrough_blocks) && !side_has_work(a, work, s.taken_blocks)) continue;
    r.branches.push_back(f.instructions[i].offset);
    in.insert(i);
    for (int x : s.fallthrough_blocks) add_block(cfg, x, in);
    for (int x : s.taken_blocks) add_block(cfg, x, in);
  }
  // Barrier regions holding any of it contribute their opening and closing instructions.
  std::set<std::size_t> barrier_ins;
  for (const auto& reg : a.regions) {
    bool holds = false;
    for (auto k : reg.instructions) holds = holds || in.count(k);
    if (!holds) continue;
    r.barriers.push_back(reg.bssy_offset);
    barrier_ins.insert(reg.bssy);
    for (std::size_t k = 0; k < f.instructions.size(); ++k)
      if (std::find(reg.bsync.begin(), reg.bsync.end(), f.instructions[k].offset) != reg.bsync.end() &&
          cfg.block_of_instruction[k] >= 0)
        barrier_ins.insert(k);
  }
  in.insert(barrier_ins.begin(), barrier_ins.end());
  std::sort(r.barriers.begin(), r.barriers.end());
  r.barriers.erase(std::unique(r.barriers.begin(), r.barriers.end()), r.barriers.end());
  r.instructions.assign(in.begin(), in.end());
  return r;
}

Bracket check_bracket(const FunctionAnalysis& a, const TimedRegion& region) {
  Bracket br;
  const Function& f = *a.function;
  const Cfg& cfg = a.cfg;
  const auto dom = entry_dominators(a);
  if (dom.empty()) return br;
  auto before = [&](std::size_t x, std::size_t y) {  // x runs before y on every path from the entry
    const int bx = cfg.block_of_instruction[x], by = cfg.block_of_instruction[y];
    return bx == by ? x <= y : dominates(dom, bx, by);
  };
  auto after = [&](std::size_t x, std::size_t y) {  // x runs after y on every path to the exit
    const int bx = cfg.block_of_instruction[x], by = cfg.block_of_instruction[y];
    return bx == by ? x >= y : a.pd.postdominates(bx, by);
  };
  std::vector<ClockRead> clocks;
  for (const auto& c : clock_reads(f, cfg))
    if (reads_clock_low(f.instructions[c.index]) && dom[cfg.block_of_instruction[c.index]] >= 0) clocks.push_back(c);
  if (clocks.empty() || region.instructions.empty()) return br;
  // The pair (start runs before stop) enclosing the most region instructions; ties: the later
  // start, then the earlier stop.
  const ClockRead *start = nullptr, *stop = nullptr;
  std::size_t most = 0;
  for (const auto& s : clocks)
    for (const auto& t : clocks) {
      if (s.index == t.index || !before(s.index, t.index)) continue;
      std::size_t n = 0;
      for (auto k : region.instructions) n += k != s.index && k != t.index && before(s.index, k) && after(t.index, k);
      const bool better = !start || n > most || (n == most && (s.offset > start->offset ||
                                                               (s.offset == start->offset && t.offset < stop->offset)));
      if (better) {
        start = &s;
        stop = &t;
        most = n;
      }
    }
  if (!start) {  // one clock read, or none runs before another: no bracket
    br.start = clocks.front().offset;
    for (auto k : region.instructions) br.not_before_stop.push_back(f.instructions[k].offset);
    return br;
  }
  br.start = start->offset;
  br.stop = stop->offset;
  for (auto k : region.instructions) {
    if (!before(start->index, k) || k == start->index) br.not_after_start.push_back(f.instructions[k].offset);
    if (!after(stop->index, k) || k == stop->index) br.not_before_stop.push_back(f.instructions[k].offset);
  }
  return br;
}

}  // namespace divbench::model
