// divbench's own timed kernels in the SASS: the timed region and the clock64 bracketing check (do the two
// clock reads of a timed kernel enclose all of its divergent work in the CFG?), on the analyzer's clock
// reads, timer retry loops and branch sides (sass/bracket.hpp).
//
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
#include <vector>

#include "divbench/sass/analysis.hpp"
#include "divbench/sass/bracket.hpp"
#include "divbench/sass/loops.hpp"

namespace divbench::model {

using sass::FunctionAnalysis;
using sass::Loops;

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

}  // namespace divbench::model
