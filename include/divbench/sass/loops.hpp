// Natural loops of one SASS function's CFG, and dominance between instructions.
//
//  * Dominators are computed from a virtual root with an edge to every entry (the function's first
//    instruction and each subroutine entered by CALL), so a subroutine's loops are found too and a
//    block is dominated by the entry of the code that holds it.
//  * A back edge is u -> h where h dominates u; the natural loop of header h is h plus every block
//    that reaches one of its back-edge sources without passing h. Loops with the same header are one
//    loop (several latches).
//  * Nesting: loop A is inside loop B when A's blocks are a subset of B's; `parent` is the smallest
//    such B, `depth` 1 for an outermost loop.
//  * A cycle with no back edge (an irreducible region: a cycle entered at two places) is not a
//    natural loop; its blocks are counted in `irreducible_blocks` so such code is never silently
//    taken for straight-line code.
#pragma once
#include <cstdint>
#include <vector>

#include "divbench/sass/cfg.hpp"

namespace divbench::sass {

struct Loop {
  int header = -1;              // block index
  std::vector<int> blocks;      // block indices, ascending (so ascending offsets)
  std::vector<int> latches;     // sources of the back edges, ascending
  int parent = -1;              // index into Loops::loops, -1 when outermost
  int depth = 1;
  std::vector<int> children;    // indices into Loops::loops

  bool contains(int block) const;
};

struct Loops {
  std::vector<Loop> loops;       // ordered by header offset, outer before inner for one header offset
  std::vector<int> idom;         // immediate dominator per block (virtual root = blocks.size()); -1 unreachable
  std::vector<int> irreducible_blocks;  // blocks on a cycle that no natural loop covers

  // Innermost loop containing `block`, or -1.
  int innermost(int block) const;
  // Block a dominates block b (reflexive), on the graph rooted at the virtual root.
  bool dominates(int a, int b) const;
};

Loops find_loops(const Cfg& cfg);

// Dominators rooted at one entry block only (other entries unreachable from it get -1): what runs
// before what when the function is entered at `entry`. Used by the clock-bracketing check.
std::vector<int> dominators_from(const Cfg& cfg, int entry);
// a dominates b (reflexive) in an idom vector (from immediate_dominators / dominators_from).
bool dominates(const std::vector<int>& idom, int a, int b);

}  // namespace divbench::sass
