// Cycles of one warp-pass through each instruction of a function: the loop-cost model's schedule
// (model/loop_cost.hpp) applied instruction by instruction, for code that is not a single-path loop.
//
//   cycles(i) = stall(i)                       the control word's stall field (at least 1)
//             + B        when i is a branch     (BRA/JMP/BRX/JMX; charged as taken)
//             + wait(i)                         a wait on a scoreboard set earlier in the same block
//                                               by a variable-latency producer that is not a memory
//                                               access: max(0, W - cycles issued since it)
// A wait on a memory access is not modelled (its latency is not a model constant): the instruction
// is marked `memory_wait` and a sum over it is a lower bound; that includes a load that reaches it
// from another block (a loop's load used in the next iteration). Waits on other producers in another
// block are not modelled either (taken as zero). Without a decoded control word an instruction costs 1
// and is marked `no_control`.
#pragma once
#include <vector>

#include "divbench/model/loop_cost.hpp"
#include "divbench/model/memory_cost.hpp"
#include "divbench/sass/instruction.hpp"

namespace divbench::model {

struct IssueCost {
  double cycles = 1;
  bool memory_wait = false;
  bool no_control = false;
  // A memory wait priced by a measurement (attribute: PC sampling of the same program): `memory_cycles`
  // per warp pass, already added to `cycles`.
  bool scoreboard_wait = false;  // waits on any scoreboard (a variable-latency producer, in this block or not)
  bool memory_measured = false;
  double memory_cycles = 0;
  // The memory accesses whose scoreboard this instruction waits on, in this block or reaching it along
  // the CFG (the last setter of each waited scoreboard on every path in): instruction indices.
  std::vector<std::size_t> memory_producers;
  // How the measured pass of the load this instruction waits on scales with a pass's lanes
  // (model/memory_cost.hpp; no level: it does not, every extra pass is lost whole).
  LoadScaling load;
};

// Per instruction of `f` (parallel to f.instructions), with the constants `c` (B and W; a constant
// that is not fitted counts 0).
std::vector<IssueCost> issue_costs(const sass::Function& f, const CostConstants& c);

}  // namespace divbench::model
