// One function's full analysis (CFG, post-dominators, barrier regions, placement, census,
// control words) and its "divbench.sass/2" JSON. The predicates that check divbench's own kernels on it
// are model/self_check.hpp.
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

}  // namespace divbench::sass
