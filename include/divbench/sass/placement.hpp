// Reconvergence placement: where each barrier's BSYNC sits relative to the immediate
// post-dominator (IPDom) of the potentially divergent branch the BSSY guards.
//
//  * A region reconverges a branch fully when every path from the branch stays inside the region
//    until one of its BSYNCs (no BREAK out of it, no EXIT, no jump past it).
//  * A BSSY guards the first potentially divergent branch of its own region, breadth-first from the
//    BSSY through the region's blocks and never past its BSYNC, that no region opened inside it
//    (a nested BSSY) reconverges fully. Back-to-back `BSSY B1; BSSY B0; @P0 BRA`: when B0 reconverges
//    the branch fully, B1 guards the next branch after B0 closes; when threads BREAK out of B0 to
//    B1's BSYNC (short-circuit conditions), B0 reconverges only part of the branch's threads and B1
//    guards the same branch (two records: B0's partial, B1's full reconvergence).
//  * For each BSYNC block s of the region, with b the branch's block and p = IPDom(b):
//      at     s == p
//      after  s strictly post-dominates p (deferred reconvergence)
//      before s does not post-dominate b (early, partial reconvergence; also when s == b)
//    A region with several BSYNC blocks takes the worst: before > after > at.
//  * Potentially divergent branches no BSSY guards are `unguarded`; BSSYs that guard nothing are
//    counted (`bssy_guarding_nothing`).
//  * Two units are counted and never mixed: BRANCHES (each potentially divergent branch once:
//    divergent = guarded + unguarded) and GUARD RECORDS (one per BSSY region that guards a branch:
//    at / after / before / unclosed; a branch guarded by two back-to-back regions has two). The
//    IPDom-exact rate is over guard records: at / (at + after + before).
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
  // Branches, each counted once: divergent_branches = guarded_branches + unguarded.
  int divergent_branches = 0;  // potentially divergent branches
  int guarded_branches = 0;    // ... guarded by at least one BSSY region
  int unguarded = 0;           // ... guarded by none (each also has one "unguarded" BranchRecord)
  // Guard records, one per BSSY region that guards a branch (placement of its BSYNCs):
  int at = 0, after = 0, before = 0, unclosed = 0;
  int bssy_guarding_nothing = 0;
  int guard_records() const { return at + after + before + unclosed; }
  double ipdom_exact_rate() const { return at + after + before ? double(at) / (at + after + before) : 0.0; }
  PlacementCounts& operator+=(const PlacementCounts& o);
};

struct Placement {
  std::vector<BranchRecord> branches;  // sorted by branch offset, then BSSY offset
  std::vector<std::uint64_t> bssy_guarding_nothing;
  PlacementCounts counts;
};

// Every path from instruction j stays inside region r until one of r's BSYNCs.
bool reconverges_fully(const Function& f, const Cfg& cfg, const BarrierRegion& r, std::size_t j);

// Index of the instruction that regions[which]'s BSSY guards, or nullopt.
std::optional<std::size_t> guarded_branch(const Function& f, const Cfg& cfg, const std::vector<BarrierRegion>& regions,
                                          std::size_t which);

Placement place_reconvergence(const Function& f, const Cfg& cfg, const PostDominators& pd,
                              const std::vector<BarrierRegion>& regions);

}  // namespace divbench::sass
