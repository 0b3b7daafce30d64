// One function's full analysis (CFG, post-dominators, barrier regions, placement, census,
// control words) and its "divbench.sass/2" JSON; plus the self-check predicates that test
// divbench's own kernels.
#pragma once
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/sass/census.hpp"
#include "divbench/sass/placement.hpp"

namespace divbench::sass {

inline constexpr const char* kSassSchema = "divbench.sass/2";

struct FunctionAnalysis {
  const Function* function = nullptr;
  Cfg cfg;
  PostDominators pd;
  std::vector<BarrierRegion> regions;
  Placement placement;
  Census census;
};

FunctionAnalysis analyze(const Function& f);

struct CubinAnalysis {
  const Cubin* cubin = nullptr;
  std::vector<FunctionAnalysis> functions;
  Census census;
  PlacementCounts counts;
};

CubinAnalysis analyze(const Cubin& c);

json to_json(const FunctionAnalysis& a);
json to_json(const CubinAnalysis& a);
json to_json(const PlacementCounts& c);
// The whole "divbench.sass/2" document: schema, provenance (divbench git/version, nvdisasm path and
// version, date, command), per-cubin analyses and totals over all cubins.
json to_document(const std::vector<CubinAnalysis>& cubins, const std::string& nvdisasm, const std::string& command);
// Console lines: one per cubin and one per function.
std::string summary(const CubinAnalysis& a);

// Self-check predicates (the paper's "forcing genuine divergence" defence):
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

}  // namespace divbench::sass
