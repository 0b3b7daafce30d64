// Clock reads, timer retry loops and branch sides (bracket.hpp); the timed region and the clock64
// bracketing check built on them are divbench's own model (model/timed_region.hpp).
#include "divbench/sass/bracket.hpp"

#include <algorithm>
#include <set>

namespace divbench::sass {

std::string clock_kind(const Instruction& ins) {
  if (ins.base != "CS2R" && ins.base != "CS2UR" && ins.base != "S2R" && ins.base != "S2UR") return "";
  for (const auto& op : ins.operands) {
    if (op.rfind("SR_CLOCK", 0) == 0) return "clock";
    if (op.rfind("SR_GLOBALTIMER", 0) == 0) return "globaltimer";
  }
  return "";
}

bool reads_clock_low(const Instruction& ins) {
  if (clock_kind(ins) != "clock") return false;
  for (const auto& op : ins.operands)
    if (op == "SR_CLOCKLO") return true;
  return false;
}

bool is_call(const Instruction& ins) { return ins.base == "CALL" || ins.base == "CAL" || ins.base == "JCAL"; }

bool is_timer_retry_loop(const Function& f, const Cfg& cfg, const Loop& loop) {
  static const char* const kPlumbing[] = {"ISETP", "IADD", "IADD3", "IADD32I", "VIADD", "MOV", "MOV32I", "NOP", "BRA"};
  bool reads = false;
  for (int b : loop.blocks)
    for (std::size_t k = cfg.blocks[b].first; k <= cfg.blocks[b].last; ++k) {
      const Instruction& i = f.instructions[k];
      if (!clock_kind(i).empty()) {
        reads = true;
        continue;
      }
      if (std::find_if(std::begin(kPlumbing), std::end(kPlumbing), [&](const char* p) { return i.base == p; }) ==
          std::end(kPlumbing))
        return false;
    }
  return reads;
}

std::vector<ClockRead> clock_reads(const Function& f, const Cfg& cfg) {
  std::vector<ClockRead> out;
  for (std::size_t i = 0; i < f.instructions.size(); ++i) {
    if (cfg.block_of_instruction[i] < 0) continue;
    const std::string k = clock_kind(f.instructions[i]);
    if (!k.empty()) out.push_back({i, f.instructions[i].offset, k});
  }
  return out;
}

std::vector<int> blocks_until(const Cfg& cfg, int first, int stop, int avoid) {
  std::vector<int> out;
  if (first < 0 || first == stop || first == avoid) return out;
  std::vector<char> seen(cfg.blocks.size(), 0);
  std::vector<int> work{first};
  seen[first] = 1;
  while (!work.empty()) {
    const int v = work.back();
    work.pop_back();
    out.push_back(v);
    for (int w : cfg.blocks[v].succ)
      if (!seen[w] && w != stop && w != avoid) {
        seen[w] = 1;
        work.push_back(w);
      }
  }
  std::sort(out.begin(), out.end());
  return out;
}

BranchSides branch_sides(const FunctionAnalysis& a, std::size_t i) {
  BranchSides s;
  const Cfg& cfg = a.cfg;
  const int b = cfg.block_of_instruction[i];
  if (b < 0) return s;
  const int ipdom = a.pd.ipdom[b] >= 0 && a.pd.ipdom[b] < static_cast<int>(cfg.blocks.size()) ? a.pd.ipdom[b] : -1;
  const auto& ins = a.function->instructions;
  const int next = i + 1 < ins.size() ? cfg.block_of_instruction[i + 1] : -1;
  for (int succ : cfg.blocks[b].succ) {
    if (succ == next && is_conditional(ins[i])) s.fallthrough = succ;
    else s.taken.push_back(succ);
  }
  s.fallthrough_blocks = blocks_until(cfg, s.fallthrough, ipdom, b);
  std::set<int> taken;
  for (int t : s.taken)
    for (int x : blocks_until(cfg, t, ipdom, b)) taken.insert(x);
  s.taken_blocks.assign(taken.begin(), taken.end());
  return s;
}

}  // namespace divbench::sass
