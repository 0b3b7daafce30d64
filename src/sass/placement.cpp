#include "divbench/sass/placement.hpp"

#include <algorithm>
#include <set>

namespace divbench::sass {

PlacementCounts& PlacementCounts::operator+=(const PlacementCounts& o) {
  at += o.at;
  after += o.after;
  before += o.before;
  unguarded += o.unguarded;
  unclosed += o.unclosed;
  bssy_guarding_nothing += o.bssy_guarding_nothing;
  divergent_branches += o.divergent_branches;
  return *this;
}

std::optional<std::size_t> guarded_branch(const Function& f, const Cfg& cfg, const BarrierRegion& r) {
  const std::set<std::size_t> in_region(r.instructions.begin(), r.instructions.end());
  int b = cfg.block_of_instruction[r.bssy];
  std::size_t j = r.bssy + 1;
  std::set<int> seen;
  while (b >= 0 && seen.insert(b).second) {
    const Block& blk = cfg.blocks[b];
    for (; j <= blk.last; ++j) {
      const Instruction& x = f.instructions[j];
      if (!in_region.count(j)) return std::nullopt;
      // The region's closing point: a BSYNC, or (Pascal) the SSY/PBK target itself.
      if (std::find(r.bsync.begin(), r.bsync.end(), x.offset) != r.bsync.end()) return std::nullopt;
      if (is_potentially_divergent(x)) return j;
    }
    if (blk.succ.size() != 1) return std::nullopt;
    b = blk.succ[0];
    j = cfg.blocks[b].first;
  }
  return std::nullopt;
}

Placement place_reconvergence(const Function& f, const Cfg& cfg, const PostDominators& pd,
                              const std::vector<BarrierRegion>& regions) {
  Placement out;
  std::set<std::size_t> guarded;
  for (const auto& r : regions) {
    auto br = guarded_branch(f, cfg, r);
    if (!br) {
      out.bssy_guarding_nothing.push_back(r.bssy_offset);
      out.counts.bssy_guarding_nothing++;
      continue;
    }
    guarded.insert(*br);
    BranchRecord rec;
    rec.offset = f.instructions[*br].offset;
    const int b = cfg.block_of_instruction[*br];
    const int p = pd.ipdom[b];
    if (p >= 0 && p != pd.exit) rec.ipdom = cfg.blocks[p].start;
    rec.barrier = r.barrier;
    rec.bssy = r.bssy_offset;
    rec.bsync = r.bsync;
    int worst = -1;  // 0 at, 1 after, 2 before
    for (auto off : r.bsync) {
      const int s = cfg.block_of_instruction[std::find_if(f.instructions.begin(), f.instructions.end(),
                                                          [&](const Instruction& x) { return x.offset == off; }) -
                                             f.instructions.begin()];
      int kind;
      if (s == p) kind = 0;
      else if (s != b && pd.postdominates(s, b)) kind = 1;  // s strictly post-dominates b, s != p => beyond p
      else kind = 2;
      worst = std::max(worst, kind);
    }
    static const char* kNames[] = {"at", "after", "before"};
    if (worst < 0) {
      rec.placement = "unclosed";
      out.counts.unclosed++;
    } else {
      rec.placement = kNames[worst];
      (worst == 0 ? out.counts.at : worst == 1 ? out.counts.after : out.counts.before)++;
    }
    out.branches.push_back(rec);
  }
  for (std::size_t i = 0; i < f.instructions.size(); ++i) {
    if (cfg.block_of_instruction[i] < 0 || !is_potentially_divergent(f.instructions[i])) continue;
    out.counts.divergent_branches++;
    if (guarded.count(i)) continue;
    BranchRecord rec;
    rec.offset = f.instructions[i].offset;
    const int p = pd.ipdom[cfg.block_of_instruction[i]];
    if (p >= 0 && p != pd.exit) rec.ipdom = cfg.blocks[p].start;
    rec.placement = "unguarded";
    out.counts.unguarded++;
    out.branches.push_back(rec);
  }
  std::sort(out.branches.begin(), out.branches.end(), [](const BranchRecord& a, const BranchRecord& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.bssy.value_or(0) < b.bssy.value_or(0);
  });
  return out;
}

}  // namespace divbench::sass
