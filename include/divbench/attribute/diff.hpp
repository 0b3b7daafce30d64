// `divbench attribute diff`: two attribute documents (divbench.attribute/1: a base build and a new
// build of the same program) in, a verdict out (divbench.attribute_diff/1, docs/attribute.md "Gate
// divergence in CI"). Counts are exact, so any difference is a change; the thresholds say which changes
// are regressions. Host-only: no GPU, no files (the command reads and writes them).
//
// Matching across builds (PCs move when code moves): a kernel by its demangled name (the k-th kernel of
// that name in one document with the k-th in the other); a branch by its source file:line and its
// ordinal among the kernel's branches on that line (pc order). When either build of a kernel has no
// line table (no -lineinfo: every branch's source is null), by the branch's ordinal in the kernel, and
// the kernel's entry says so ("matching": "branch_ordinal").
#pragma once
#include <string>

#include "divbench/core/json_io.hpp"

namespace divbench::attribute {

inline constexpr const char* kDiffSchema = "divbench.attribute_diff/1";

struct DiffOptions {
  double max_efficiency_drop = 0.01;   // absolute drop of a branch's region efficiency (0..1)
  double max_cycles_lost_rise = 0.05;  // relative rise of a branch's estimated cycles lost
  bool allow_new_divergent_branches = false;
};

// Throws UsageError ("WHAT: ...", one line) unless `doc` is a divbench.attribute/1 document with the
// fields the diff keys on (kernels[].name, branches[].source, counts, estimate); extra fields are fine.
void check_attribute_document(const json& doc, const std::string& what);

// The verdict: {"schema", "base", "new" (the labels and the documents' provenance), "thresholds",
// "regression", "findings" (one line per regression), "regressions" (the same, structured: rule, kernel,
// file, line, ordinal, cycles lost before and after; diff_ci.hpp), "kernels_added", "kernels_removed", "kernels"
// (per matched kernel: matching, tolerance, branches matched / added / removed, before and after),
// "summary"}. `base_label`/`new_label` name the inputs as the user gave them.
json diff_documents(const json& base, const json& next, const DiffOptions& options, const std::string& base_label,
                    const std::string& new_label);

// A markdown comment for a pull request: the verdict, the thresholds, the kernels added and removed,
// and one table row per branch that changed, was added (divergent) or was removed (divergent).
std::string diff_markdown(const json& verdict, std::size_t max_rows = 50);

// The console summary (stderr): the verdict line and one line per finding.
std::string diff_console(const json& verdict);

}  // namespace divbench::attribute
