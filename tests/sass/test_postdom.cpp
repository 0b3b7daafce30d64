// Post-dominators against the brute-force definition on random graphs (including irreducible
// ones and exit-less loops): a post-dominates b iff every path from b to the virtual exit passes
// through a, i.e. b cannot reach the exit once a is removed.
#include <gtest/gtest.h>

#include <random>

#include "divbench/sass/postdom.hpp"

using namespace divbench::sass;

namespace {

// Reaches `target` from `from` in graph `g` without entering `removed`.
bool reaches(const std::vector<std::vector<int>>& g, int from, int target, int removed) {
  if (from == removed) return false;
  std::vector<char> seen(g.size(), 0);
  std::vector<int> st{from};
  seen[from] = 1;
  while (!st.empty()) {
    int v = st.back();
    st.pop_back();
    if (v == target) return true;
    for (int w : g[v])
      if (w != removed && !seen[w]) seen[w] = 1, st.push_back(w);
  }
  return false;
}

}  // namespace

TEST(PostDominators, MatchBruteForceOnRandomGraphs) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 14);
    std::vector<std::vector<int>> succ(n);
    std::vector<char> leaves(n, 0);
    for (int v = 0; v < n; ++v) {
      const int k = static_cast<int>(rng() % 4);
      for (int e = 0; e < k; ++e) {
        int w = static_cast<int>(rng() % n);
        if (std::find(succ[v].begin(), succ[v].end(), w) == succ[v].end()) succ[v].push_back(w);
      }
      leaves[v] = rng() % 5 == 0;
    }
    const PostDominators pd = post_dominators(succ, leaves);
    // The augmented graph (real edges, exit edges, the added virtual-exit edges).
    std::vector<std::vector<int>> g = succ;
    g.emplace_back();
    const int X = n;
    for (int v : pd.exit_blocks) g[v].push_back(X);
    for (int v : pd.virtual_exit_edges) g[v].push_back(X);
    for (int b = 0; b < n; ++b) ASSERT_TRUE(reaches(g, b, X, -1)) << "trial " << trial << " block " << b;
    for (int b = 0; b < n; ++b) {
      // Brute-force strict post-dominators of b.
      std::vector<int> spd;
      for (int a = 0; a <= n; ++a)
        if (a != b && !reaches(g, b, X, a)) spd.push_back(a);
      // The immediate one is the strict post-dominator that all others post-dominate.
      int ip = -1;
      for (int a : spd) {
        bool immediate = true;
        for (int c : spd)
          if (c != a && !(a == X ? false : !reaches(g, a, X, c))) immediate = false;
        if (immediate) ip = a;
      }
      EXPECT_EQ(pd.ipdom[b], ip) << "trial " << trial << " block " << b;
      for (int a = 0; a <= n; ++a)
        EXPECT_EQ(pd.postdominates(a, b), a == b || std::find(spd.begin(), spd.end(), a) != spd.end())
            << "trial " << trial << " a " << a << " b " << b;
    }
  }
}

TEST(Dominators, Irreducible) {
  // 0 -> 1, 0 -> 2, 1 <-> 2, 2 -> 3: idom(1) = idom(2) = 0, idom(3) = 2.
  std::vector<std::vector<int>> s{{1, 2}, {2}, {1, 3}, {}};
  auto idom = immediate_dominators(4, 0, s);
  EXPECT_EQ(idom, (std::vector<int>{0, 0, 0, 2}));
}
