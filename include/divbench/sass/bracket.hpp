// Clock reads and the clock64 bracketing check: do the two clock reads of a timed
// kernel enclose all of its divergent work in the CFG?
//
//  * Clock reads: CS2R / CS2UR (sm_120) / S2R / S2UR of SR_CLOCKLO / SR_CLOCKHI (kind "clock"), and of
//    SR_GLOBALTIMERLO / HI (kind "globaltimer", reported, never a bracket). A bracket end is a read
//    of SR_CLOCKLO (Volta+ CS2R reads all 64 bits there).
//  * Timer retry loops: before Volta a 64-bit clock64 / %globaltimer read is a loop (read HI, LO,
//    HI again; retry while the HIs differ, at most a bounded number of times). A loop whose every
//    instruction is a timer read or integer compare / add / move / branch and that reads a timer is
//    such a loop: it is part of the read, not work (is_timer_retry_loop).
//  * The timed region, found from the SASS alone, in code reachable from the function's entry
//    (subroutines are reached through their CALL, which is in the region):
//      - every natural loop but timer retry loops (all its instructions);
//      - every potentially divergent branch that lies in such a loop or whose sides (the blocks
//        reachable from its successors before its IPDom) hold a call (CALL; Pascal CAL) or a block
//        of such a loop, with those sides;
//      - the BSSY and BSYNC instructions (Pascal: SSY and its target) of every barrier region that
//        holds any of the above.
//    Straight-line code (the timer's own lane-0 store, a __syncwarp's out-of-line path) is not
//    work: a compiler that sinks straight-line arithmetic past the stop read is not caught here.
//  * Bracketed: one clock read dominates every region instruction (its block strictly dominates
//    theirs, or it comes first in the same block) and another post-dominates every one of them.
//    The pair is chosen among clock reads where the start runs before the stop (dominates it): the
//    pair enclosing the most region instructions (ties: the later start, then the earlier stop).
//    A clock read inside the region is outside the bracket (it is listed).
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

struct TimedRegion {
  std::vector<int> loops;                  // indices into Loops::loops
  std::vector<std::uint64_t> branches;     // divergent branches taken into the region
  std::vector<std::uint64_t> barriers;     // BSSY (SSY) offsets of the regions holding them
  std::vector<std::size_t> instructions;   // every instruction of the region, ascending
};
TimedRegion timed_region(const FunctionAnalysis& a, const Loops& loops);

struct Bracket {
  std::optional<std::uint64_t> start, stop;   // the chosen clock reads
  std::vector<std::uint64_t> not_after_start;  // region instructions the start read does not dominate
  std::vector<std::uint64_t> not_before_stop;  // region instructions the stop read does not post-dominate
  // Region instructions exist, both reads exist and differ, nothing escapes.
  bool bracketed() const { return start && stop && *start != *stop && not_after_start.empty() && not_before_stop.empty(); }
};
Bracket check_bracket(const FunctionAnalysis& a, const TimedRegion& region);

}  // namespace divbench::sass
