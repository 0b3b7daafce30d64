// Region-only efficiency: the counters cover a whole kernel (prologue, clock reads, epilogue), so the
// divergent region alone is isolated by subtracting a zero-work twin of the same launch:
//   region_ratio = (thread_inst(full) - thread_inst(twin)) / (inst(full) - inst(twin))
// which approaches 32/k when the region runs k equal paths.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "divbench/core/json_io.hpp"

namespace divbench {

inline constexpr const char* kMetricRatio = "smsp__thread_inst_executed_per_inst_executed.ratio";
inline constexpr const char* kMetricInst = "smsp__inst_executed.sum";
inline constexpr const char* kMetricThreadInst = "smsp__thread_inst_executed.sum";

using MetricValues = std::map<std::string, double>;

struct RegionEfficiency {
  double inst = 0;         // warp instructions of the region (full - twin)
  double thread_inst = 0;  // thread instructions of the region (full - twin)
  std::optional<double> ratio;  // thread_inst / inst; empty when the difference is not usable
  std::string why;              // reason when ratio is empty
};

// Needs kMetricInst and kMetricThreadInst in both maps (std::invalid_argument otherwise). No ratio when
// the twin executed as many instructions as the full launch or more, or thread_inst is negative.
RegionEfficiency region_efficiency(const MetricValues& full, const MetricValues& twin);

json to_json(const RegionEfficiency& r);

}  // namespace divbench
