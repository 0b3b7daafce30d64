// Pascal (and Maxwell) reconvergence: the SSY/SYNC, PBK/BRK and PCNT/CONT stack, mapped onto the
// same BarrierRegion model as Volta+ BSSY/BSYNC so that placement and nesting are computed by the
// same passes (place_reconvergence, max_live_barriers).
//
//  * `SSY L` (`PBK L`, `PCNT L`) pushes reconvergence address L; `SYNC` (`BRK`, `CONT`) sends the
//    executing lanes to the address on top of the stack, where they wait for the rest. nvdisasm's
//    text listing names that address (BRANCH_TARGETS), so SYNC/BRK/CONT are CFG branches to it
//    (cfg.cpp) and a conditional one on a per-thread predicate is potentially divergent.
//  * Each opener becomes one region: `barrier` is a per-function ordinal (0, 1, ... in offset
//    order; Pascal has no barrier registers), `modifier` is the opener ("SSY", "PBK", "PCNT"),
//    `target` is L and `bsync` is {L}: reconvergence happens where lanes resume, at L. The region
//    holds the instructions reachable from the opener without passing L (paths end at an
//    unconditional EXIT/RET). Placement then compares L's block with the IPDom of the first
//    potentially divergent branch after the opener, exactly as for BSSY; nesting depth is the
//    maximum number of regions containing one instruction.
#pragma once
#include <vector>

#include "divbench/sass/cfg.hpp"
#include "divbench/sass/regions.hpp"

namespace divbench::sass {

// True for SSY, PBK, PCNT (push a reconvergence address).
bool is_stack_push(const Instruction& ins);

std::vector<BarrierRegion> pascal_regions(const Function& f, const Cfg& cfg);

}  // namespace divbench::sass
