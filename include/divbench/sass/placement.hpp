// Reconvergence placement: where each barrier's BSYNC sits relative to the immediate
// post-dominator (IPDom) of the potentially divergent branch the BSSY guards.
//
//  * Each branch belongs to the innermost region that contains it: among the regions whose
//    instructions include it, the one opened inside all the others (its BSSY lies in their regions);
//    when nesting does not decide, the smaller region, then the later BSSY.
//  * A BSSY guards the first potentially divergent branch of its own region that belongs to it:
//    breadth-first from the BSSY through the region's blocks, never past the region's BSYNC.
//    Branches inside a region opened later within it belong to that nested region. So for the
//    back-to-back pair `BSSY B3; BSSY B2; @P0 BRA` (short-circuit conditions on sm_75..sm_90) B2
//    guards the branch and B3 guards the first branch after B2's region closes (or nothing).
//  * For each BSYNC block s of the region, with b the branch's block and p = IPDom(b):
//      at     s == p
//      after  s strictly post-dominates p (deferred reconvergence)
//      before s does not post-dominate b (early, partial reconvergence; also when s == b)
//    A region with several BSYNC blocks takes the worst: before > after > at.
//  * Potentially divergent branches no BSSY guards are `unguarded`; BSSYs that guard nothing are
//    counted (`bssy_guarding_nothing`). IPDom-exact rate = at / (at + after + before).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "divbench/sass/postdom.hpp"
#include "divbench/sass/regions.hpp"

namespace divbench::sass {

struct BranchRecord {
  std::uint64_t offset = 0;               // the branch
  std::optional<std::uint64_t> ipdom;     // start of the IPDom block; nullopt = virtual exit
  int barrier = -1;                       // Bn of the guarding BSSY, -1 when unguarded
  std::optional<std::uint64_t> bssy;      // offset of the guarding BSSY
  std::vector<std::uint64_t> bsync;       // offsets of the BSYNCs that close its region
  std::string placement;                  // at | after | before | unguarded | unclosed
};

struct PlacementCounts {
  int at = 0, after = 0, before = 0, unguarded = 0, unclosed = 0;
  int bssy_guarding_nothing = 0;
  int divergent_branches = 0;  // potentially divergent branches (each counted once)
  double ipdom_exact_rate() const { return at + after + before ? double(at) / (at + after + before) : 0.0; }
  PlacementCounts& operator+=(const PlacementCounts& o);
};

struct Placement {
  std::vector<BranchRecord> branches;  // sorted by branch offset, then BSSY offset
  std::vector<std::uint64_t> bssy_guarding_nothing;
  PlacementCounts counts;
};

// Index into `regions` of the innermost region containing instruction j, or -1.
int innermost_region(const std::vector<BarrierRegion>& regions, std::size_t j);

// Index of the instruction that regions[which]'s BSSY guards, or nullopt.
std::optional<std::size_t> guarded_branch(const Function& f, const Cfg& cfg, const std::vector<BarrierRegion>& regions,
                                          std::size_t which);

Placement place_reconvergence(const Function& f, const Cfg& cfg, const PostDominators& pd,
                              const std::vector<BarrierRegion>& regions);

}  // namespace divbench::sass
