// What a pass of a global load costs against the sectors it fetches (the memory rule of `divbench
// attribute`, docs/attribute.md step 6), from divbench's own probe (`--sweep memory`,
// experiments/memory/): per memory level, the cycles f(s) of a pass of a dependent load whose lanes
// fetch s sectors (one per lane), measured at 1..32 lanes. f is not a line: a pass waits for the
// slowest of its sectors, so it grows fast over the first few and slowly after.
//
// Divergence splits a warp's lanes over more passes. A gather (each lane its own sector) fetches the
// same sectors in fewer, fuller passes when its lanes are compacted, and a fuller pass costs more:
//   ideal time = (T / A) passes x p x f(s_A) / f(s)        (s = sectors per pass now, s_A = at A lanes)
//   loss      = W x p - ideal time                          (p = the measured cycles per pass now)
// A load whose lanes share sectors (coalesced: fewer sectors per pass than 3/4 of its lanes) fetches
// about as many sectors per pass at more lanes: f(s_A) = f(s), every extra pass is lost whole (the
// rule before this one).
#pragma once
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench::model {

struct MemoryLevelCost {
  std::string level;            // "dram", "l2", "l1"
  int warps_per_sm = 1;         // the warps resident per SM it was measured at
  std::vector<double> lanes;    // ascending, 1..32: sectors per pass (one per lane)
  std::vector<double> cycles;   // f at each: cycles per pass
  // f at `sectors` (piecewise linear between the measured lanes, constant beyond the ends).
  double at(double sectors) const;
};

// The levels of a `--sweep memory` result: summary.levels[].per_lanes (one warp per SM) and those of
// summary.occupancy[] (more warps per SM); UsageError naming `what` when the document is not one or a
// value is out of range.
std::vector<MemoryLevelCost> memory_levels_from_result(const json& result, const std::string& what);

// The same as a constants document keeps them ({"level", "warps_per_sm", "lanes", "cycles_per_load"}), and back.
json memory_levels_json(const std::vector<MemoryLevelCost>& levels);
std::vector<MemoryLevelCost> memory_levels_from_json(const json& levels, const std::string& what);

// Lanes per pass share sectors below this many sectors per lane: a coalesced load, not a gather.
inline constexpr double kGatherSectorsPerLane = 0.75;

// How one load's measured pass scales with the lanes of a pass (attached to the instruction that waits on it).
struct LoadScaling {
  const MemoryLevelCost* level = nullptr;  // the level whose f at the pass's sectors lies nearest the measured pass
  double sectors_per_lane = 0;
  bool gather = false;
  // f(sectors at `to_lanes`) / f(sectors at `from_lanes`): what a pass costs at to_lanes against now
  // (1 for a coalesced load or without a level).
  double ratio(double from_lanes, double to_lanes) const;
};

// For a load measured at `cycles_per_pass`, `sectors_per_pass` and `lanes_per_pass` in a kernel of
// `warps_per_sm` resident warps: the curves measured at the warps per SM nearest it (by ratio), and
// among them the level whose f lies nearest the pass. The probe shows why: at 16 warps per SM a DRAM
// gather's pass grows about in proportion to its sectors beyond 12 lanes (the memory system, not the
// wait for the slowest sector, is the limit), at one warp per SM it grows 12% from 16 to 32 lanes. No
// level (empty levels, no sectors): level null, ratio 1.
LoadScaling scale_load(const std::vector<MemoryLevelCost>& levels, double cycles_per_pass, double sectors_per_pass,
                       double lanes_per_pass, double warps_per_sm = 1);

}  // namespace divbench::model
