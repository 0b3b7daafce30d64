// What `divbench attribute` writes: the static table (console, JSON), and for a run the result
// document "divbench.attribute/1", the ranked console table and the markdown report by source line.
#pragma once
#include <string>
#include <vector>

#include "divbench/attribute/attribution.hpp"

namespace divbench::attribute {

inline constexpr const char* kStaticSchema = "divbench.attribute_static/1";
inline constexpr const char* kAttributeSchema = "divbench.attribute/1";

// {"schema", "kernels": [{"name", "arch", "branches": [...]}]} (branches.hpp's contract).
json static_document(const std::vector<FunctionBranches>& kernels);
// One line per kernel and one per branch.
std::string static_console(const std::vector<FunctionBranches>& kernels);

// Branches with divergent executions, every kernel, ranked by estimated cycles lost.
std::vector<const BranchCost*> ranked(const std::vector<KernelAttribution>& kernels,
                                      std::vector<const KernelAttribution*>* owner = nullptr);
std::string ranked_table(const std::vector<KernelAttribution>& kernels, std::size_t top);
// Markdown: the ranked table, then per kernel its branches with the source line's text (read from
// the file the line table names, when it is readable here).
std::string markdown_report(const std::vector<KernelAttribution>& kernels, const json& run);

}  // namespace divbench::attribute
