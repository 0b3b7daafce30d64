// The pricing stage of `divbench attribute` (attribute::run's third stage, after the program's runs and
// the disassembly): per kernel, the machine it ran on (SMs, resident warps per SM from its launch shapes),
// the waits PC sampling measured (priced into the issue model's cycles, the memory rule scaling gathers),
// the attribution (warp-cycles lost per branch: attribution.hpp) and the time model (time saved:
// time_model.hpp). Each is a unit with its own CPU test; this file only joins them.
#pragma once
#include <vector>

#include "divbench/attribute/counts.hpp"
#include "divbench/attribute/pcsamples.hpp"
#include "divbench/attribute/run.hpp"
#include "divbench/model/loop_cost.hpp"
#include "divbench/sass/analysis.hpp"

namespace divbench::attribute {

struct PriceInput {
  const RunCounts& counts;
  const PcSamples* pcs;  // nullptr without a sampling run
  const model::CostConstants& constants;
  const std::vector<const sass::FunctionAnalysis*>& analyses;  // parallel to out.counts
};

// Fills out.kernels and out.times (parallel to out.counts; out.costs gain the measured waits). Returns,
// per kernel name, what the sampling priced ({"warp_cycles_per_sample", ..., "memory_rule"}): the
// document's "time_sampling".
json price(Outcome& out, const PriceInput& in);

}  // namespace divbench::attribute
