// The static branch table: potentially divergent branches, their IPDom, placement and region.
#include "divbench/attribute/branches.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "divbench/sass/cfg.hpp"

namespace divbench::attribute {

namespace {

// The worst guard record of a branch, in the placement pass's order (before > after > at), an
// unguarded or unclosed record dominating: what a reader needs to know first.
int severity(const std::string& p) {
  if (p == "unguarded") return 5;
  if (p == "unclosed") return 4;
  if (p == "before") return 3;
  if (p == "after") return 2;
  if (p == "at") return 1;
  return 0;
}

// Blocks reachable from the successors of block `b` without entering block `stop` (-1: none).
std::vector<int> region_blocks(const sass::Cfg& cfg, int b, int stop) {
  std::vector<char> seen(cfg.blocks.size(), 0);
  std::vector<int> work;
  for (int s : cfg.blocks[b].succ)
    if (s != stop && s >= 0 && s < static_cast<int>(cfg.blocks.size()) && !seen[s]) seen[s] = 1, work.push_back(s);
  while (!work.empty()) {
    const int x = work.back();
    work.pop_back();
    for (int s : cfg.blocks[x].succ)
      if (s != stop && s >= 0 && s < static_cast<int>(cfg.blocks.size()) && !seen[s]) seen[s] = 1, work.push_back(s);
  }
  std::vector<int> out;
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (seen[i]) out.push_back(static_cast<int>(i));
  return out;
}

// An indirect call (`CALL.REL.NOINC R8`): lanes with different targets run their callees one after the
// other, as an indirect branch's paths do. Its targets are not in the code: every subroutine of the
// function may be one.
bool is_indirect_call(const sass::Instruction& ins) {
  return ins.base == "CALL" && !ins.operands.empty() && ins.operands[0].size() > 1 && ins.operands[0][0] == 'R' &&
         std::isdigit(static_cast<unsigned char>(ins.operands[0][1]));
}

// The instruction indices of `blocks`, appended to `out`.
template <class Blocks>
void add_instructions(const sass::Cfg& cfg, const Blocks& blocks, std::vector<std::size_t>& out) {
  for (int rb : blocks)
    for (std::size_t k = cfg.blocks[rb].first; k <= cfg.blocks[rb].last; ++k) out.push_back(k);
}

// Every subroutine's code (the CFG's entries past the function's own, and the code no entry reaches: a
// callee reached only through a register), as instruction indices: what an indirect call may run.
std::vector<std::size_t> all_subroutine_code(const sass::FunctionAnalysis& a) {
  const sass::Function& f = *a.function;
  std::set<int> blocks;
  for (std::size_t e = 1; e < a.cfg.entries.size(); ++e) {
    const int eb = a.cfg.entries[e];
    if (eb < 0) continue;
    blocks.insert(eb);
    for (int rb : region_blocks(a.cfg, eb, -1)) blocks.insert(rb);
  }
  std::vector<std::size_t> out;
  add_instructions(a.cfg, blocks, out);
  for (std::size_t k = 0; k < f.instructions.size() && k < a.cfg.block_of_instruction.size(); ++k)
    if (a.cfg.block_of_instruction[k] < 0) out.push_back(k);
  return out;
}

// The code a call runs: an indirect call every subroutine, a direct one the blocks its target reaches.
std::vector<std::size_t> called_code(const sass::FunctionAnalysis& a, const sass::Instruction& call,
                                     const std::vector<std::size_t>& subroutines) {
  if (is_indirect_call(call)) return subroutines;
  std::vector<std::size_t> out;
  for (std::uint64_t t : call.targets) {
    const int eb = a.cfg.find_block(t);
    if (eb < 0) continue;
    std::vector<int> blocks = region_blocks(a.cfg, eb, -1);
    blocks.push_back(eb);
    add_instructions(a.cfg, blocks, out);
  }
  return out;
}

// A region's paths run the code of the functions its instructions call (a CALL falls through in the CFG,
// its callee being another entry): `region` gains that code, and the code of the calls in it, sorted.
void add_called_code(const sass::FunctionAnalysis& a, const std::vector<std::size_t>& subroutines,
                     std::vector<std::size_t>& region) {
  std::set<std::size_t> have(region.begin(), region.end());
  std::vector<std::size_t> work(region.begin(), region.end());
  while (!work.empty()) {
    const std::size_t i = work.back();
    work.pop_back();
    const sass::Instruction& ins = a.function->instructions[i];
    if (ins.base != "CALL") continue;
    for (std::size_t k : called_code(a, ins, subroutines))
      if (have.insert(k).second) work.push_back(k);
  }
  region.assign(have.begin(), have.end());
}

}  // namespace

bool region_holds(const StaticBranch& outer, const StaticBranch& inner) {
  return std::binary_search(outer.region.begin(), outer.region.end(), inner.index) &&
         !std::binary_search(inner.region.begin(), inner.region.end(), outer.index);
}

std::string source_of(const sass::Instruction& ins, const std::vector<std::string>& source_files) {
  if (ins.source_line <= 0 || ins.source_file < 0 || static_cast<std::size_t>(ins.source_file) >= source_files.size())
    return "";
  return source_files[ins.source_file] + ":" + std::to_string(ins.source_line);
}

FunctionBranches branch_table(const sass::FunctionAnalysis& a, int sm, const std::vector<std::string>& source_files) {
  const sass::Function& f = *a.function;
  FunctionBranches out;
  out.name = f.name;
  out.sm = sm;
  // Placement records by branch offset (a branch guarded by two back-to-back regions has two).
  std::map<std::uint64_t, std::string> placement;
  for (const auto& r : a.placement.branches) {
    auto it = placement.find(r.offset);
    if (it == placement.end() || severity(r.placement) > severity(it->second)) placement[r.offset] = r.placement;
  }
  const std::vector<std::size_t> subroutines = all_subroutine_code(a);
  for (std::size_t i = 0; i < f.instructions.size(); ++i) {
    const auto& ins = f.instructions[i];
    const int b = i < a.cfg.block_of_instruction.size() ? a.cfg.block_of_instruction[i] : -1;
    if (b < 0) continue;  // unreachable code
    if (is_indirect_call(ins) && i + 1 < f.instructions.size()) {
      // The region: every subroutine (all_subroutine_code); the paths meet again after the call.
      StaticBranch s;
      s.index = i;
      s.pc = ins.offset - f.start;
      s.text = ins.text();
      s.indirect = true;
      s.call = true;
      s.source = source_of(ins, source_files);
      s.placement = "unguarded";
      s.ipdom = f.instructions[i + 1].offset - f.start;
      s.ipdom_index = i + 1;
      s.region = subroutines;
      std::sort(s.region.begin(), s.region.end());
      s.region.erase(std::unique(s.region.begin(), s.region.end()), s.region.end());
      out.branches.push_back(std::move(s));
      continue;
    }
    if (!sass::is_potentially_divergent(ins)) continue;
    StaticBranch s;
    s.index = i;
    s.pc = ins.offset - f.start;
    s.text = ins.text();
    s.indirect = sass::is_indirect_branch(ins);
    s.source = source_of(ins, source_files);
    const auto pit = placement.find(ins.offset);
    s.placement = pit == placement.end() ? "unguarded" : pit->second;
    s.guarded = s.placement != "unguarded";
    const int p = a.pd.ipdom.empty() ? -1 : a.pd.ipdom[b];
    const bool to_exit = p < 0 || p == a.pd.exit;
    if (!to_exit) {
      s.ipdom = a.cfg.blocks[p].start - f.start;
      // Lanes "after" are read past the block's BSYNCs: a BSYNC runs once per arriving path.
      std::size_t k = a.cfg.blocks[p].first;
      while (k < a.cfg.blocks[p].last && f.instructions[k].base == "BSYNC") ++k;
      s.ipdom_index = k;
    }
    const std::vector<int> blocks = region_blocks(a.cfg, b, to_exit ? -1 : p);
    add_instructions(a.cfg, blocks, s.region);
    add_called_code(a, subroutines, s.region);  // sorted
    s.loop = std::binary_search(blocks.begin(), blocks.end(), b);
    if (s.loop) {
      // The loop's entry edges: from a block outside the region into it (its header, in a natural loop).
      std::set<std::size_t> entries;
      for (int rb : blocks)
        for (int q : a.cfg.blocks[rb].pred)
          if (q >= 0 && !std::binary_search(blocks.begin(), blocks.end(), q)) entries.insert(a.cfg.blocks[q].last);
      s.entries.assign(entries.begin(), entries.end());
    }
    out.branches.push_back(std::move(s));
  }
  // Nesting: the number of other branches whose region holds this branch (a loop's own branch,
  // whose region runs back through it, does not count itself).
  for (auto& s : out.branches)
    for (const auto& o : out.branches)
      if (&o != &s && region_holds(o, s)) ++s.nesting;
  return out;
}

json to_json(const StaticBranch& b) {
  return json{{"pc", b.pc},
              {"ipdom", b.ipdom ? json(*b.ipdom) : json(nullptr)},
              {"placement", b.placement},
              {"guarded", b.guarded},
              {"source", b.source.empty() ? json(nullptr) : json(b.source)},
              {"nesting", b.nesting},
              {"indirect", b.indirect},
              {"call", b.call},
              {"region_instructions", b.region.size()},
              {"loop", b.loop},
              {"instruction", b.text}};
}

json to_json(const FunctionBranches& f) {
  json br = json::array();
  for (const auto& b : f.branches) br.push_back(to_json(b));
  return json{{"name", f.name}, {"arch", "sm_" + std::to_string(f.sm)}, {"branches", br}};
}

}  // namespace divbench::attribute
