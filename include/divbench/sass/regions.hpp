// Barrier regions: each `BSSY Bn, target` opens a region that its `BSYNC Bn` closes.
//
// The region is found by walking the CFG forward from the BSSY, instruction by instruction:
//  * a `BSYNC Bn` of the same register closes the path (recorded in `bsync`, included);
//  * an unguarded `BREAK Bn` ends the path (the lanes left the barrier), as does another
//    `BSSY Bn` or an unguarded EXIT/RET;
//  * after a guarded `@Px BREAK Bn`, the taken edge of a branch in the same block with the same
//    guard `@Px BRA` leaves the region (those lanes left the barrier); the fall-through stays.
// Barrier registers saved/restored through BMOV are not tracked (counted in the census only).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/sass/cfg.hpp"

namespace divbench::sass {

struct BarrierRegion {
  std::size_t bssy = 0;          // instruction index of the BSSY
  std::uint64_t bssy_offset = 0;
  int barrier = -1;              // n of Bn
  std::string modifier;          // "", "RECONVERGENT", "RELIABLE", ...
  std::uint64_t target = 0;      // BSSY's reconvergence address operand
  std::vector<std::uint64_t> bsync;        // offsets of the BSYNCs that close it (sorted)
  std::vector<std::size_t> instructions;   // indices inside the region (BSSY and BSYNCs included)
};

// Barrier register number of "B3" (-1 when not a barrier register).
int barrier_number(const std::string& operand);

std::vector<BarrierRegion> barrier_regions(const Function& f, const Cfg& cfg);

// Maximum over instructions of the number of distinct barrier registers whose regions contain it.
int max_live_barriers(const std::vector<BarrierRegion>& regions, std::size_t instruction_count);

}  // namespace divbench::sass
