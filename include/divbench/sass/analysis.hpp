// One function's full analysis (CFG, post-dominators, barrier regions, placement, census,
// control words) and its "divbench.sass/1" JSON; plus the self-check predicates that test
// divbench's own kernels.
#pragma once
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/sass/census.hpp"
#include "divbench/sass/placement.hpp"

namespace divbench::sass {

inline constexpr const char* kSassSchema = "divbench.sass/1";

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
// The whole "divbench.sass/1" document: schema, provenance (divbench git/version, nvdisasm path and
// version, date, command), per-cubin analyses and totals over all cubins.
json to_document(const std::vector<CubinAnalysis>& cubins, const std::string& nvdisasm, const std::string& command);
// Console lines: one per cubin and one per function.
std::string summary(const CubinAnalysis& a);

// Self-check predicates (the paper's "forcing genuine divergence" defence):
// a potentially divergent conditional branch that a BSSY guards, with its region closed by a BSYNC.
bool has_guarded_divergent_branch(const FunctionAnalysis& a);
// No potentially divergent branch at all (a predicated twin: both arms computed, selected).
bool is_branch_free(const FunctionAnalysis& a);
// Function names (mangled) containing `needle`.
std::vector<const FunctionAnalysis*> functions_matching(const CubinAnalysis& a, const std::string& needle);

}  // namespace divbench::sass
