// Dominators (Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm", 2001) and
// post-dominators of a CFG with a virtual exit.
//
// Post-dominators are the dominators of the reversed graph rooted at a virtual exit node X:
//  * every block that can leave the function (EXIT/RET/KILL, guarded or not: its successor list
//    lacks the path that leaves) gets an edge to X; a block with no successors always does;
//  * blocks that cannot reach X (infinite loops with no exit) are connected to X as LLVM does for
//    its post-dominator tree: repeatedly take the lowest-offset block that still cannot reach X,
//    walk forward (DFS) through the blocks that cannot reach X, and connect the last block that
//    walk discovers (the "furthest" one, normally the loop's latch) to X; repeat until every
//    block reaches X. Such added edges are reported (`virtual_exit_edges`).
// The algorithm is exact on irreducible graphs (CHK iterates to the fixed point).
#pragma once
#include <vector>

#include "divbench/sass/cfg.hpp"

namespace divbench::sass {

// Immediate dominators of a graph given by successor lists; idom[root] == root, -1 for nodes not
// reachable from root.
std::vector<int> immediate_dominators(int n, int root, const std::vector<std::vector<int>>& succ);

struct PostDominators {
  int exit = -1;                    // index of the virtual exit (== number of blocks)
  std::vector<int> ipdom;           // per block (and exit): immediate post-dominator, exit's is itself
  std::vector<int> exit_blocks;     // blocks with a real edge to the virtual exit
  std::vector<int> virtual_exit_edges;  // blocks connected to exit only to break an exit-less loop

  // a post-dominates b (reflexive) / strictly.
  bool postdominates(int a, int b) const;
  bool strictly_postdominates(int a, int b) const { return a != b && postdominates(a, b); }
};

// `leaves(b)`: block b can leave the function (ends in EXIT/RET/KILL, or has no successors).
PostDominators post_dominators(const Cfg& cfg, const Function& f);
// Same on a bare graph; `leaves[b]` marks blocks with an edge to the virtual exit.
PostDominators post_dominators(const std::vector<std::vector<int>>& succ, const std::vector<char>& leaves);

}  // namespace divbench::sass
