#include "divbench/sass/placement.hpp"

#include <algorithm>
#include <deque>
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
  guarded_branches += o.guarded_branches;
  return *this;
}

namespace {

bool contains(const BarrierRegion& r, std::size_t j) {
  return std::binary_search(r.instructions.begin(), r.instructions.end(), j);
}

bool closes(const BarrierRegion& r, const Instruction& x) {
  return std::find(r.bsync.begin(), r.bsync.end(), x.offset) != r.bsync.end();
}

// Region `inner` is nested in `outer`: its BSSY lies inside `outer`'s region.
bool nested_in(const BarrierRegion& inner, const BarrierRegion& outer) {
  return inner.bssy != outer.bssy && contains(outer, inner.bssy);
}

}  // namespace

bool reconverges_fully(const Function& f, const Cfg& cfg, const BarrierRegion& r, std::size_t j) {
  if (!contains(r, j) || cfg.block_of_instruction[j] < 0) return false;
  std::deque<int> work;
  std::set<int> seen;
  for (int s : cfg.blocks[cfg.block_of_instruction[j]].succ)
    if (seen.insert(s).second) work.push_back(s);
  while (!work.empty()) {
    const Block& blk = cfg.blocks[work.front()];
    work.pop_front();
    bool closed = false;
    for (std::size_t k = blk.first; k <= blk.last; ++k) {
      const Instruction& x = f.instructions[k];
      if (!contains(r, k)) return false;  // left the region (BREAK out, or a jump past it)
      if (closes(r, x)) {
        closed = true;
        break;
      }
      if (is_exit(x) && !x.guarded()) return false;  // the path ends before any BSYNC
    }
    if (closed) continue;
    if (blk.succ.empty()) return false;
    for (int s : blk.succ)
      if (seen.insert(s).second) work.push_back(s);
  }
  return true;
}

std::optional<std::size_t> guarded_branch(const Function& f, const Cfg& cfg, const std::vector<BarrierRegion>& regions,
                                          std::size_t which) {
  const BarrierRegion& r = regions[which];
  // Regions opened inside this one: a branch one of them reconverges fully is theirs, not ours.
  std::vector<const BarrierRegion*> nested;
  for (const auto& q : regions)
    if (nested_in(q, r)) nested.push_back(&q);
  const auto taken_by_nested = [&](std::size_t j) {
    return std::any_of(nested.begin(), nested.end(), [&](const BarrierRegion* q) { return reconverges_fully(f, cfg, *q, j); });
  };
  // Breadth-first from the instruction after the BSSY through the region's blocks; a block is
  // scanned from its entry point (the BSSY's own block from the BSSY) until the region's closing
  // point (a BSYNC, or on Pascal the SSY/PBK target) or the block's end.
  std::deque<std::size_t> work{r.bssy + 1};
  std::set<std::size_t> started{r.bssy + 1};
  while (!work.empty()) {
    const std::size_t k = work.front();
    work.pop_front();
    if (k >= f.instructions.size() || cfg.block_of_instruction[k] < 0) continue;
    const Block& blk = cfg.blocks[cfg.block_of_instruction[k]];
    bool closed = false;
    for (std::size_t j = k; j <= blk.last; ++j) {
      const Instruction& x = f.instructions[j];
      if (!contains(r, j) || closes(r, x)) {
        closed = true;
        break;
      }
      if (is_potentially_divergent(x) && !taken_by_nested(j)) return j;
    }
    if (closed) continue;
    for (int s : blk.succ) {
      const std::size_t first = cfg.blocks[s].first;
      if (started.insert(first).second) work.push_back(first);
    }
  }
  return std::nullopt;
}

Placement place_reconvergence(const Function& f, const Cfg& cfg, const PostDominators& pd,
                              const std::vector<BarrierRegion>& regions) {
  Placement out;
  std::set<std::size_t> guarded;
  for (std::size_t ri = 0; ri < regions.size(); ++ri) {
    const BarrierRegion& r = regions[ri];
    auto br = guarded_branch(f, cfg, regions, ri);
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
    if (guarded.count(i)) {
      out.counts.guarded_branches++;
      continue;
    }
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
