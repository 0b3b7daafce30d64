// Natural loops (back edges to a dominating header) and instruction-level dominance helpers.
#include "divbench/sass/loops.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "divbench/sass/postdom.hpp"

namespace divbench::sass {

bool Loop::contains(int block) const { return std::binary_search(blocks.begin(), blocks.end(), block); }

bool dominates(const std::vector<int>& idom, int a, int b) {
  if (a < 0 || b < 0 || b >= static_cast<int>(idom.size()) || idom[b] < 0) return false;
  for (int v = b;; v = idom[v]) {
    if (v == a) return true;
    if (idom[v] == v || idom[v] < 0) return false;
  }
}

bool Loops::dominates(int a, int b) const { return sass::dominates(idom, a, b); }

int Loops::innermost(int block) const {
  int best = -1;
  for (std::size_t i = 0; i < loops.size(); ++i)
    if (loops[i].contains(block) && (best < 0 || loops[i].depth > loops[best].depth)) best = static_cast<int>(i);
  return best;
}

namespace {

std::vector<std::vector<int>> successors(const Cfg& cfg) {
  std::vector<std::vector<int>> succ(cfg.blocks.size());
  for (std::size_t b = 0; b < cfg.blocks.size(); ++b) succ[b] = cfg.blocks[b].succ;
  return succ;
}

// Blocks on some cycle: members of a strongly connected component with more than one block or a
// self edge (Tarjan, iterative).
std::vector<char> on_cycles(const std::vector<std::vector<int>>& succ) {
  const int n = static_cast<int>(succ.size());
  std::vector<int> index(n, -1), low(n, 0), comp(n, -1), st;
  std::vector<char> on_st(n, 0), cyc(n, 0);
  int counter = 0, ncomp = 0;
  for (int s = 0; s < n; ++s) {
    if (index[s] >= 0) continue;
    std::vector<std::pair<int, std::size_t>> work{{s, 0}};
    index[s] = low[s] = counter++;
    st.push_back(s);
    on_st[s] = 1;
    while (!work.empty()) {
      auto& [v, k] = work.back();
      if (k < succ[v].size()) {
        const int w = succ[v][k++];
        if (index[w] < 0) {
          index[w] = low[w] = counter++;
          st.push_back(w);
          on_st[w] = 1;
          work.push_back({w, 0});
        } else if (on_st[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        std::vector<int> members;
        int w;
        do {
          w = st.back();
          st.pop_back();
          on_st[w] = 0;
          comp[w] = ncomp;
          members.push_back(w);
        } while (w != v);
        const bool self = std::find(succ[v].begin(), succ[v].end(), v) != succ[v].end();
        if (members.size() > 1 || self)
          for (int m : members) cyc[m] = 1;
        ++ncomp;
      }
      const int done = v;
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
    }
  }
  return cyc;
}

}  // namespace

std::vector<int> dominators_from(const Cfg& cfg, int entry) {
  const int n = static_cast<int>(cfg.blocks.size());
  if (entry < 0 || entry >= n) return std::vector<int>(n, -1);
  return immediate_dominators(n, entry, successors(cfg));
}

Loops find_loops(const Cfg& cfg) {
  const int n = static_cast<int>(cfg.blocks.size());
  auto succ = successors(cfg);
  auto rooted = succ;
  rooted.emplace_back();
  for (int e : cfg.entries)
    if (e >= 0) rooted[n].push_back(e);
  Loops r;
  r.idom = immediate_dominators(n + 1, n, rooted);
  // Back edges grouped by header.
  std::map<int, std::vector<int>> latches;
  for (int u = 0; u < n; ++u)
    for (int h : succ[u])
      if (sass::dominates(r.idom, h, u)) latches[h].push_back(u);
  for (auto& [h, ls] : latches) {
    Loop l;
    l.header = h;
    std::sort(ls.begin(), ls.end());
    l.latches = ls;
    std::set<int> body{h};
    std::vector<int> work;
    for (int u : ls)
      if (body.insert(u).second) work.push_back(u);
    while (!work.empty()) {
      const int v = work.back();
      work.pop_back();
      for (int p : cfg.blocks[v].pred)
        if (r.idom[p] >= 0 && body.insert(p).second) work.push_back(p);
    }
    l.blocks.assign(body.begin(), body.end());
    r.loops.push_back(std::move(l));
  }
  // Nesting: the parent is the smallest strictly larger loop containing every block.
  for (std::size_t i = 0; i < r.loops.size(); ++i) {
    int best = -1;
    for (std::size_t k = 0; k < r.loops.size(); ++k) {
      if (k == i || r.loops[k].blocks.size() <= r.loops[i].blocks.size()) continue;
      if (!std::includes(r.loops[k].blocks.begin(), r.loops[k].blocks.end(), r.loops[i].blocks.begin(),
                         r.loops[i].blocks.end()))
        continue;
      if (best < 0 || r.loops[k].blocks.size() < r.loops[best].blocks.size()) best = static_cast<int>(k);
    }
    r.loops[i].parent = best;
  }
  for (std::size_t i = 0; i < r.loops.size(); ++i) {
    int d = 1;
    for (int p = r.loops[i].parent; p >= 0; p = r.loops[p].parent) ++d;
    r.loops[i].depth = d;
    if (r.loops[i].parent >= 0) r.loops[r.loops[i].parent].children.push_back(static_cast<int>(i));
  }
  // Cycles no natural loop explains.
  const auto cyc = on_cycles(succ);
  for (int b = 0; b < n; ++b) {
    if (!cyc[b]) continue;
    bool covered = false;
    for (const auto& l : r.loops) covered = covered || l.contains(b);
    if (!covered) r.irreducible_blocks.push_back(b);
  }
  return r;
}

}  // namespace divbench::sass
