// Shared by the listing harnesses: run the whole analysis (CFG, post-dominators, regions,
// placement, census, control words) and its JSON/console output over parsed functions.
#pragma once
#include <string>
#include <vector>

#include "divbench/model/self_check.hpp"
#include "divbench/sass/analysis.hpp"

namespace divbench::fuzz {

inline void analyse_all(std::vector<sass::Function> fns, int sm) {
  sass::Cubin c;
  c.path = c.source = "fuzz.cubin";
  c.sm = sm;
  c.functions = std::move(fns);
  const sass::CubinAnalysis a = sass::analyze(c);
  (void)json_text(sass::to_document({a}, "", "fuzz"));  // as divbench sass prints and writes it
  (void)sass::summary(a);
  for (const auto& f : a.functions) {
    (void)model::guarded_divergent_branches_in_loops(f);
    (void)model::is_branch_free(f);
  }
}

}  // namespace divbench::fuzz
