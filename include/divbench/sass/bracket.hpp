// Clock reads, timer retry loops and the sides of a branch, in any cubin: what divbench's own timed-region
// and clock64 bracketing check (model/timed_region.hpp) are built on.
//
//  * Clock reads: CS2R / CS2UR (sm_120) / S2R / S2UR of SR_CLOCKLO / SR_CLOCKHI (kind "clock"), and of
//    SR_GLOBALTIMERLO / HI (kind "globaltimer", reported, never a bracket). A bracket end is a read
//    of SR_CLOCKLO (Volta+ CS2R reads all 64 bits there).
//  * Timer retry loops: before Volta a 64-bit clock64 / %globaltimer read is a loop (read HI, LO,
//    HI again; retry while the HIs differ, at most a bounded number of times). A loop whose every
//    instruction is a timer read or integer compare / add / move / branch and that reads a timer is
//    such a loop: it is part of the read, not work (is_timer_retry_loop).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "divbench/sass/analysis.hpp"
#include "divbench/sass/loops.hpp"

namespace divbench::sass {

struct ClockRead {
  std::size_t index = 0;  // instruction index
  std::uint64_t offset = 0;
  std::string kind;       // "clock" | "globaltimer"
};

// Reachable clock and globaltimer reads, in offset order.
std::vector<ClockRead> clock_reads(const Function& f, const Cfg& cfg);
// "clock" / "globaltimer" when the instruction reads one, else "".
std::string clock_kind(const Instruction& ins);
// A read of SR_CLOCKLO: what a bracket end can be.
bool reads_clock_low(const Instruction& ins);
// CALL, and Pascal's CAL / JCAL.
bool is_call(const Instruction& ins);
bool is_timer_retry_loop(const Function& f, const Cfg& cfg, const Loop& loop);

// Blocks reachable from `first` without entering `stop` or `avoid` (either may be -1).
std::vector<int> blocks_until(const Cfg& cfg, int first, int stop, int avoid);

// The two sides of a conditional branch up to its IPDom: the fall-through successor's blocks
// and the taken successor's (targets; for BRX every target).
struct BranchSides {
  int fallthrough = -1;             // block after the branch, -1 when the branch cannot fall through
  std::vector<int> taken;           // target blocks
  std::vector<int> fallthrough_blocks, taken_blocks;
};
BranchSides branch_sides(const FunctionAnalysis& a, std::size_t branch_index);

}  // namespace divbench::sass
