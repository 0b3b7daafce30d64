#include "divbench/sass/cfg.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace divbench::sass {

namespace {
bool is_predicate_name(const std::string& s0) {
  std::string s = !s0.empty() && s0[0] == '!' ? s0.substr(1) : s0;
  if (s == "PT" || s == "UPT") return true;
  if (s.size() == 2 && s[0] == 'P' && s[1] >= '0' && s[1] <= '7') return true;
  return s.size() == 3 && s[0] == 'U' && s[1] == 'P' && s[2] >= '0' && s[2] <= '7';
}
std::string bare(const std::string& s) { return !s.empty() && s[0] == '!' ? s.substr(1) : s; }
}  // namespace

bool is_branch(const Instruction& i) {
  return i.base == "BRA" || i.base == "JMP" || i.base == "BRX" || i.base == "JMX";
}
bool is_indirect_branch(const Instruction& i) { return i.base == "BRX" || i.base == "JMX"; }
bool is_stack_jump(const Instruction& i) { return i.base == "SYNC" || i.base == "BRK" || i.base == "CONT"; }
bool is_exit(const Instruction& i) { return i.base == "EXIT" || i.base == "RET" || i.base == "KILL"; }

bool is_conditional(const Instruction& i) {
  if (i.guarded()) return !(i.guard == "PT" && !i.guard_negated);
  if (i.base == "BRA" && (i.has("DIV") || i.has("CONV"))) return true;
  if (!i.operands.empty() && is_predicate_name(i.operands[0]) && i.operands.size() >= 2)
    return !(i.operands[0] == "PT");
  return false;
}

bool is_potentially_divergent(const Instruction& i) {
  if (i.guarded() && i.guard == "PT" && i.guard_negated) return false;  // never executes
  if (i.base == "BRA" || i.base == "JMP") {
    if (i.has("U") || i.has("DIV") || i.has("CONV")) return false;
    if (!is_conditional(i)) return false;
    bool per_thread = i.guarded() && !is_uniform_predicate(i.guard);
    if (!i.operands.empty() && is_predicate_name(i.operands[0]) && i.operands.size() >= 2)
      per_thread = per_thread || !is_uniform_predicate(bare(i.operands[0]));
    return per_thread;
  }
  if (is_stack_jump(i)) return i.guarded() && !is_uniform_predicate(i.guard);  // Pascal @P0 SYNC/BRK/CONT
  if (is_indirect_branch(i)) {
    if (i.guarded() && !is_uniform_predicate(i.guard)) return true;
    return !i.operands.empty() && i.operands[0].size() >= 2 && i.operands[0][0] == 'R' && i.operands[0] != "RZ";
  }
  return false;
}

int Cfg::find_block(std::uint64_t start) const {
  auto it = std::lower_bound(blocks.begin(), blocks.end(), start,
                             [](const Block& b, std::uint64_t s) { return b.start < s; });
  return it != blocks.end() && it->start == start ? static_cast<int>(it - blocks.begin()) : -1;
}

Cfg build_cfg(const Function& f) {
  const auto& ins = f.instructions;
  const std::size_t n = ins.size();
  std::map<std::uint64_t, std::size_t> index;
  for (std::size_t i = 0; i < n; ++i) index[ins[i].offset] = i;
  auto idx = [&](std::uint64_t off) -> long {
    auto it = index.find(off);
    return it == index.end() ? -1 : static_cast<long>(it->second);
  };
  // Successor instruction indices of instruction i when it ends a block (-1 = virtual exit).
  auto transfers = [&](std::size_t i, std::vector<long>& out) -> bool {  // returns: ends a block
    const Instruction& x = ins[i];
    const bool cond = is_conditional(x);
    if (is_branch(x)) {
      for (auto t : x.targets)
        if (idx(t) >= 0) out.push_back(idx(t));
      if ((cond || (is_indirect_branch(x) && x.guarded())) && i + 1 < n) out.push_back(static_cast<long>(i) + 1);
      return true;
    }
    if (is_stack_jump(x) && !x.targets.empty()) {
      for (auto t : x.targets)
        if (idx(t) >= 0) out.push_back(idx(t));
      if (x.guarded() && i + 1 < n) out.push_back(static_cast<long>(i) + 1);
      return true;
    }
    if (is_exit(x)) {
      if (x.guarded() && i + 1 < n) out.push_back(static_cast<long>(i) + 1);
      return true;
    }
    if (i + 1 < n) out.push_back(static_cast<long>(i) + 1);
    return false;
  };
  std::set<std::size_t> leaders;
  std::vector<std::size_t> entry_idx;
  if (n) entry_idx.push_back(0);
  for (const auto& [name, off] : f.subroutines)
    if (idx(off) > 0) entry_idx.push_back(idx(off));
  for (auto e : entry_idx) leaders.insert(e);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<long> s;
    if (transfers(i, s)) {
      if (i + 1 < n) leaders.insert(i + 1);
      for (auto t : s) leaders.insert(static_cast<std::size_t>(t));
    }
  }
  // Reachability over instructions from the entries.
  std::vector<char> reach(n, 0);
  std::vector<std::size_t> stack(entry_idx.begin(), entry_idx.end());
  while (!stack.empty()) {
    auto i = stack.back();
    stack.pop_back();
    if (reach[i]) continue;
    reach[i] = 1;
    std::vector<long> s;
    transfers(i, s);
    for (auto t : s)
      if (!reach[t]) stack.push_back(static_cast<std::size_t>(t));
  }
  Cfg g;
  g.block_of_instruction.assign(n, -1);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    std::vector<long> s;
    while (!transfers(j, s) && j + 1 < n && !leaders.count(j + 1)) {
      s.clear();
      ++j;
    }
    if (reach[i]) {
      Block b;
      b.first = i;
      b.last = j;
      b.start = ins[i].offset;
      b.end = ins[j].offset + static_cast<std::uint64_t>(f.instruction_bytes);
      for (std::size_t k = i; k <= j; ++k) g.block_of_instruction[k] = static_cast<int>(g.blocks.size());
      g.blocks.push_back(b);
    }
    i = j + 1;
  }
  for (auto& b : g.blocks) {
    std::vector<long> s;
    transfers(b.last, s);
    for (auto t : s) {
      int sb = g.block_of_instruction[t];
      if (sb >= 0 && std::find(b.succ.begin(), b.succ.end(), sb) == b.succ.end()) b.succ.push_back(sb);
    }
  }
  for (std::size_t b = 0; b < g.blocks.size(); ++b)
    for (int s : g.blocks[b].succ) g.blocks[s].pred.push_back(static_cast<int>(b));
  for (auto e : entry_idx) g.entries.push_back(g.block_of_instruction[e]);
  return g;
}

SimpleGraph to_simple_graph(const Cfg& cfg) {
  SimpleGraph g;
  for (const auto& b : cfg.blocks) {
    g.starts.push_back(b.start);
    std::vector<std::uint64_t> s;
    for (int x : b.succ) s.push_back(cfg.blocks[x].start);
    std::sort(s.begin(), s.end());
    g.succ.push_back(s);
  }
  for (int e : cfg.entries) g.entries.push_back(cfg.blocks[e].start);
  return g;
}

SimpleGraph reduce_straight_line(const SimpleGraph& g) {
  std::map<std::uint64_t, std::vector<std::uint64_t>> succ;
  std::map<std::uint64_t, int> npred;
  for (std::size_t i = 0; i < g.starts.size(); ++i) {
    succ[g.starts[i]] = g.succ[i];
    for (auto s : g.succ[i]) npred[s]++;
  }
  std::set<std::uint64_t> entries(g.entries.begin(), g.entries.end());
  // Node b is absorbed into a when a's only successor is b, b's only predecessor is a, and b is
  // not an entry. The start offsets stay those of the chain heads.
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto& [a, s] : succ) {
      if (s.size() != 1 || s[0] == a) continue;
      const auto b = s[0];
      if (npred[b] != 1 || entries.count(b)) continue;
      s = succ[b];
      succ.erase(b);
      changed = true;
      break;
    }
  }
  SimpleGraph r;
  r.entries = g.entries;
  for (auto& [a, s] : succ) {
    r.starts.push_back(a);
    std::sort(s.begin(), s.end());
    r.succ.push_back(s);
  }
  return r;
}

}  // namespace divbench::sass
