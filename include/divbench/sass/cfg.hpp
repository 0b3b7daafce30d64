// Control-flow graph of one SASS function.
//
// Assumptions (also in docs/sass.md):
//  * Entries: the function's first instruction, plus every subroutine symbol inside its section
//    ("$kernel$callee", entered by CALL): each is a root of the graph.
//  * Leaders: entries, targets of BRA/JMP/BRX/JMX (and Pascal BRA/JMP), and the instruction after
//    any BRA, BRX, JMP, JMX, EXIT, RET, KILL (conditional or not).
//  * Edges: BRA/JMP go to their target; they also fall through when conditional (a guard other
//    than PT, or a predicate condition operand other than PT, as in `BRA.U !UP0, 0x1b0`, or
//    BRA.DIV/BRA.CONV whose condition is the warp's convergence state). BRX/JMX go to every
//    BRANCH_TARGETS entry (+ fall-through when guarded); without a list they have no edges.
//    EXIT/RET/KILL end their path (an edge to the virtual exit); when guarded they fall through.
//  * CALL is straight-line (the callee returns to the next instruction); the callee is a separate
//    entry. BREAK is straight-line: it drops lanes from a barrier's mask, the jump is the BRA that
//    follows. BSSY, BSYNC, WARPSYNC, BMOV, NOP are straight-line.
//  * Blocks not reachable from an entry are dropped: the padding after the last EXIT (a
//    self-loop `BRA` and NOPs) and any dead code.
//  * Blocks are identified by start offset; `end` is the offset just past the last instruction.
//  * Pascal-style SYNC/BRK/CONT jump to the address pushed by SSY/PBK/PCNT: an edge to each entry
//    of their `targets` (+ fall-through when guarded). The text parser fills those targets for
//    sm < 70 (resolve_stack_targets in parse.hpp); without targets they are straight-line.
#pragma once
#include <cstdint>
#include <vector>

#include "divbench/sass/instruction.hpp"

namespace divbench::sass {

struct Block {
  std::uint64_t start = 0;
  std::uint64_t end = 0;  // one past the last instruction (offset + instruction size)
  std::size_t first = 0;  // index of the first instruction in Function::instructions
  std::size_t last = 0;   // index of the last instruction
  std::vector<int> succ;  // block indices
  std::vector<int> pred;
};

struct Cfg {
  std::vector<Block> blocks;  // ascending start
  std::vector<int> entries;   // block indices of the function entry and subroutine entries
  std::vector<int> block_of_instruction;  // instruction index -> block, -1 when unreachable

  int find_block(std::uint64_t start) const;  // block starting at `start`, or -1
};

// Instruction classification used by the CFG and the placement pass.
bool is_branch(const Instruction& ins);           // BRA, JMP, BRX, JMX
bool is_indirect_branch(const Instruction& ins);  // BRX, JMX
bool is_exit(const Instruction& ins);             // EXIT, RET, KILL
bool is_stack_jump(const Instruction& ins);       // Pascal SYNC, BRK, CONT
bool is_conditional(const Instruction& ins);      // guarded, or a predicate condition operand
// A conditional branch that may split a warp: BRA (not .U/.DIV/.CONV) whose guard or condition
// is a per-thread predicate P0..P6; or BRX/JMX on a per-thread register (R..); or a Pascal
// SYNC/BRK/CONT guarded by a per-thread predicate.
bool is_potentially_divergent(const Instruction& ins);

Cfg build_cfg(const Function& f);

// Merges each block into its fall-through successor while that successor has exactly one
// predecessor, is not an entry, and the block has exactly one successor: the graph of maximal
// straight-line blocks. Used to compare with nvdisasm -bbcfg (which also splits at labels and
// after CALL). Returns start -> sorted successor starts.
struct SimpleGraph {
  std::vector<std::uint64_t> starts;                 // sorted
  std::vector<std::vector<std::uint64_t>> succ;      // parallel to starts, each sorted
  std::vector<std::uint64_t> entries;
};
SimpleGraph to_simple_graph(const Cfg& cfg);
SimpleGraph reduce_straight_line(const SimpleGraph& g);

}  // namespace divbench::sass
