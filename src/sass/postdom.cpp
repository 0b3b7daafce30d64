#include "divbench/sass/postdom.hpp"

#include <algorithm>

namespace divbench::sass {

std::vector<int> immediate_dominators(int n, int root, const std::vector<std::vector<int>>& succ) {
  // Reverse postorder by iterative DFS.
  std::vector<int> order, rpo_num(n, -1);
  std::vector<char> seen(n, 0);
  std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
  seen[root] = 1;
  while (!stack.empty()) {
    auto& [v, k] = stack.back();
    if (k < succ[v].size()) {
      int w = succ[v][k++];
      if (!seen[w]) {
        seen[w] = 1;
        stack.push_back({w, 0});
      }
    } else {
      order.push_back(v);
      stack.pop_back();
    }
  }
  std::reverse(order.begin(), order.end());
  for (std::size_t i = 0; i < order.size(); ++i) rpo_num[order[i]] = static_cast<int>(i);
  std::vector<std::vector<int>> pred(n);
  for (int v = 0; v < n; ++v)
    if (seen[v])
      for (int w : succ[v]) pred[w].push_back(v);
  std::vector<int> idom(n, -1);
  idom[root] = root;
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (rpo_num[a] > rpo_num[b]) a = idom[a];
      while (rpo_num[b] > rpo_num[a]) b = idom[b];
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::size_t i = 1; i < order.size(); ++i) {
      int v = order[i], nd = -1;
      for (int p : pred[v]) {
        if (idom[p] < 0) continue;
        nd = nd < 0 ? p : intersect(p, nd);
      }
      if (nd != idom[v]) {
        idom[v] = nd;
        changed = true;
      }
    }
  }
  return idom;
}

bool PostDominators::postdominates(int a, int b) const {
  if (b < 0 || b >= static_cast<int>(ipdom.size()) || ipdom[b] < 0) return false;
  for (int x = b;; x = ipdom[x]) {
    if (x == a) return true;
    if (x == exit || ipdom[x] == x) return false;
  }
}

PostDominators post_dominators(const std::vector<std::vector<int>>& succ, const std::vector<char>& leaves) {
  const int n = static_cast<int>(succ.size());
  PostDominators pd;
  pd.exit = n;
  std::vector<std::vector<int>> rev(n + 1);  // reversed graph: X -> leaving blocks, w -> v for v -> w
  for (int v = 0; v < n; ++v)
    for (int w : succ[v]) rev[w].push_back(v);
  for (int v = 0; v < n; ++v)
    if (leaves[v] || succ[v].empty()) {
      rev[n].push_back(v);
      pd.exit_blocks.push_back(v);
    }
  auto reaching = [&] {  // blocks that reach X = reachable from X in rev
    std::vector<char> r(n + 1, 0);
    std::vector<int> st{n};
    r[n] = 1;
    while (!st.empty()) {
      int v = st.back();
      st.pop_back();
      for (int w : rev[v])
        if (!r[w]) r[w] = 1, st.push_back(w);
    }
    return r;
  };
  for (auto r = reaching();; r = reaching()) {
    int start = -1;
    for (int v = 0; v < n && start < 0; ++v)
      if (!r[v]) start = v;
    if (start < 0) break;
    // Forward DFS among non-reaching blocks; the last newly discovered block is the furthest.
    std::vector<char> seen(n, 0);
    std::vector<int> st{start};
    seen[start] = 1;
    int last = start;
    while (!st.empty()) {
      int v = st.back();
      st.pop_back();
      last = v;
      for (int w : succ[v])
        if (!seen[w] && !r[w]) seen[w] = 1, st.push_back(w);
    }
    rev[n].push_back(last);
    pd.virtual_exit_edges.push_back(last);
  }
  pd.ipdom = immediate_dominators(n + 1, n, rev);
  return pd;
}

PostDominators post_dominators(const Cfg& cfg, const Function& f) {
  std::vector<std::vector<int>> succ;
  std::vector<char> leaves;
  for (const auto& b : cfg.blocks) {
    succ.push_back(b.succ);
    leaves.push_back(is_exit(f.instructions[b.last]) ? 1 : 0);
  }
  return post_dominators(succ, leaves);
}

}  // namespace divbench::sass
