#include "divbench/sass/regions.hpp"

#include <algorithm>
#include <set>

namespace divbench::sass {

int barrier_number(const std::string& op) {
  if (op.size() < 2 || op[0] != 'B') return -1;
  for (std::size_t i = 1; i < op.size(); ++i)
    if (op[i] < '0' || op[i] > '9') return -1;
  return std::stoi(op.substr(1));
}

namespace {
int first_barrier_operand(const Instruction& ins) {
  for (const auto& op : ins.operands)
    if (int b = barrier_number(op); b >= 0) return b;
  return -1;
}
}  // namespace

std::vector<BarrierRegion> barrier_regions(const Function& f, const Cfg& cfg) {
  std::vector<BarrierRegion> out;
  const auto& ins = f.instructions;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    if (ins[i].base != "BSSY" || cfg.block_of_instruction[i] < 0) continue;
    BarrierRegion r;
    r.bssy = i;
    r.bssy_offset = ins[i].offset;
    r.barrier = first_barrier_operand(ins[i]);
    r.modifier = ins[i].modifiers.empty() ? "" : ins[i].modifiers.front();
    r.target = ins[i].targets.empty() ? 0 : ins[i].targets.front();
    std::set<std::size_t> in_region{i}, bsync;
    // Work items: (instruction index to start scanning at).
    std::vector<std::size_t> work{i + 1};
    std::set<std::size_t> started{i + 1};
    while (!work.empty()) {
      std::size_t k = work.back();
      work.pop_back();
      if (k >= ins.size() || cfg.block_of_instruction[k] < 0) continue;
      const Block& b = cfg.blocks[cfg.block_of_instruction[k]];
      bool stopped = false;
      std::string broken_guard;
      bool broken_negated = false;
      for (std::size_t j = k; j <= b.last; ++j) {
        const Instruction& x = ins[j];
        in_region.insert(j);
        const int xb = first_barrier_operand(x);
        if (x.base == "BSYNC" && xb == r.barrier) {
          bsync.insert(j);
          stopped = true;
          break;
        }
        if (x.base == "BSSY" && xb == r.barrier) {
          in_region.erase(j);
          stopped = true;
          break;
        }
        if (x.base == "BREAK" && xb == r.barrier) {
          if (!x.guarded()) {
            stopped = true;
            break;
          }
          broken_guard = x.guard;
          broken_negated = x.guard_negated;
        }
        if (is_exit(x) && !x.guarded()) {
          stopped = true;
          break;
        }
      }
      if (stopped) continue;
      const Instruction& term = ins[b.last];
      for (int s : b.succ) {
        const Block& sb = cfg.blocks[s];
        const bool taken = is_branch(term) && std::find(term.targets.begin(), term.targets.end(), sb.start) != term.targets.end() &&
                           !(sb.start == term.offset + static_cast<std::uint64_t>(f.instruction_bytes) && is_conditional(term));
        if (taken && !broken_guard.empty() && term.guard == broken_guard && term.guard_negated == broken_negated) continue;
        if (started.insert(sb.first).second) work.push_back(sb.first);
      }
    }
    for (auto j : bsync) r.bsync.push_back(ins[j].offset);
    r.instructions.assign(in_region.begin(), in_region.end());
    out.push_back(std::move(r));
  }
  return out;
}

int max_live_barriers(const std::vector<BarrierRegion>& regions, std::size_t n) {
  std::vector<std::set<int>> live(n);
  for (const auto& r : regions)
    for (auto j : r.instructions)
      if (j < n) live[j].insert(r.barrier);
  std::size_t best = 0;
  for (const auto& s : live) best = std::max(best, s.size());
  return static_cast<int>(best);
}

}  // namespace divbench::sass
