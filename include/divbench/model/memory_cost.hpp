// What a pass of a global load costs against the sectors it fetches (the memory rule of `divbench
// attribute`, docs/attribute.md step 6), from divbench's own probe (`--sweep memory`,
// experiments/memory/): per memory level, a pass of a dependent load costs fixed + per_sector x sectors
// cycles. Divergence splits a warp's lanes over more passes; a pass with fewer lanes of a gather (each
// lane its own sector) fetches fewer sectors, so the sectors' part of the time is spent whether the
// lanes run together or apart, and only the fixed part of each extra pass is lost:
//   loss of a load's wait = (W - T / A) x (cycles per pass - per_sector x sectors per pass)
// A load whose lanes share sectors (coalesced: fewer sectors per pass than 3/4 of its lanes) fetches
// about the same sectors per pass with more lanes, so its whole pass is lost (the rule before this one).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench::model {

struct MemoryLevelCost {
  std::string level;            // "dram", "l2", "l1"
  double fixed_cycles = 0;      // a pass's cycles at 0 sectors (the line's intercept)
  double cycles_per_sector = 0; // the line's slope
};

// The levels of a `--sweep memory` result (summary.levels[] with fixed_cycles and cycles_per_sector);
// UsageError naming `what` when the document is not one or a value is out of range.
std::vector<MemoryLevelCost> memory_levels_from_result(const json& result, const std::string& what);

// The same as a constants document keeps them ({"level", "fixed_cycles", "cycles_per_sector"}), and back.
json memory_levels_json(const std::vector<MemoryLevelCost>& levels);
std::vector<MemoryLevelCost> memory_levels_from_json(const json& levels, const std::string& what);

// Lanes per pass share sectors below this many sectors per lane: a coalesced load, not a gather.
inline constexpr double kGatherSectorsPerLane = 0.75;

struct LoadSplit {
  const MemoryLevelCost* level = nullptr;  // the level whose line is nearest the measured pass
  double sector_cycles = 0;                // per_sector x sectors per pass: not lost to divergence
  bool gather = false;
};

// For a measured pass of `cycles_per_pass` cycles at a load with `sectors_per_pass` and
// `lanes_per_pass`: the level whose fixed + per_sector x sectors lies nearest the measured pass, and
// (for a gather) the part of the pass that its sectors cost (at most the pass; a negative slope counts 0).
// No level (empty levels): nothing split.
LoadSplit split_load_pass(const std::vector<MemoryLevelCost>& levels, double cycles_per_pass, double sectors_per_pass,
                          double lanes_per_pass);

}  // namespace divbench::model
