// divbench's self-check of its own kernels on the analyzer's results (the paper's "forcing genuine
// divergence" defence): does a divergent variant really branch inside a barrier region, is a predicated
// twin branch-free. Used by the SASS tests (tests/sass/) and the fuzz harnesses.
#pragma once
#include <string>
#include <vector>

#include "divbench/sass/analysis.hpp"

namespace divbench::model {

using sass::CubinAnalysis;
using sass::FunctionAnalysis;

// distinct potentially divergent branches that a BSSY guards, with the region closed by a BSYNC;
int guarded_divergent_branches(const FunctionAnalysis& a);
// those whose block lies on a CFG cycle (a per-path branch inside a loop over paths, as in k-way,
// as opposed to straight-line scaffolding such as the region timer's lane-0 store);
int guarded_divergent_branches_in_loops(const FunctionAnalysis& a);
// at least one such branch (a divergent variant really branches inside a barrier region);
bool has_guarded_divergent_branch(const FunctionAnalysis& a);
// no potentially divergent branch at all;
bool is_branch_free(const FunctionAnalysis& a);
// no more divergent branches (guarded or not) than `baseline` — for a predicated twin whose only
// branches are shared scaffolding (e.g. the region timer's lane-0 store) with a single-path kernel.
bool branches_no_more_than(const FunctionAnalysis& twin, const FunctionAnalysis& baseline);
// Function names (mangled) containing `needle`.
std::vector<const FunctionAnalysis*> functions_matching(const CubinAnalysis& a, const std::string& needle);

}  // namespace divbench::model
