// The self-check predicates on divbench's own kernels (self_check.hpp).
#include "divbench/model/self_check.hpp"

#include <set>

namespace divbench::model {

using namespace divbench::sass;  // the analyzer this reads

int guarded_divergent_branches(const FunctionAnalysis& a) {
  std::set<std::uint64_t> offs;
  for (const auto& r : a.placement.branches)
    if (r.bssy && !r.bsync.empty()) offs.insert(r.offset);
  return static_cast<int>(offs.size());
}

namespace {
bool on_cycle(const Cfg& cfg, int b) {
  std::vector<char> seen(cfg.blocks.size(), 0);
  std::vector<int> st(cfg.blocks[b].succ.begin(), cfg.blocks[b].succ.end());
  while (!st.empty()) {
    int v = st.back();
    st.pop_back();
    if (v == b) return true;
    if (seen[v]) continue;
    seen[v] = 1;
    for (int w : cfg.blocks[v].succ) st.push_back(w);
  }
  return false;
}
}  // namespace

int guarded_divergent_branches_in_loops(const FunctionAnalysis& a) {
  std::set<std::uint64_t> offs;
  for (const auto& r : a.placement.branches) {
    if (!r.bssy || r.bsync.empty()) continue;
    const auto* ins = a.function->at(r.offset);
    if (!ins) continue;
    const int b = a.cfg.block_of_instruction[ins - a.function->instructions.data()];
    if (b >= 0 && on_cycle(a.cfg, b)) offs.insert(r.offset);
  }
  return static_cast<int>(offs.size());
}

bool has_guarded_divergent_branch(const FunctionAnalysis& a) { return guarded_divergent_branches(a) > 0; }

bool branches_no_more_than(const FunctionAnalysis& twin, const FunctionAnalysis& baseline) {
  return twin.placement.counts.divergent_branches <= baseline.placement.counts.divergent_branches &&
         guarded_divergent_branches(twin) <= guarded_divergent_branches(baseline);
}

bool is_branch_free(const FunctionAnalysis& a) { return a.placement.counts.divergent_branches == 0; }

std::vector<const FunctionAnalysis*> functions_matching(const CubinAnalysis& a, const std::string& needle) {
  std::vector<const FunctionAnalysis*> out;
  for (const auto& f : a.functions)
    if (f.function->name.find(needle) != std::string::npos) out.push_back(&f);
  return out;
}

}  // namespace divbench::model
