// `divbench attribute diff --annotations github` and `--sarif FILE`: the verdict's regressions where a CI
// shows them (docs/attribute.md "Gate divergence in CI"). Pure functions of the verdict (its "regressions":
// one entry per finding, with its rule, kernel, file and line); the command writes what they return.
#pragma once
#include <cstddef>
#include <string>

#include "divbench/core/json_io.hpp"

namespace divbench::attribute {

// The kinds of regression the gate knows: a SARIF ruleId each (stable: code scanning keys alerts on them).
inline constexpr const char* kRuleNewDivergentBranch = "divbench/new-divergent-branch";  // added in NEW, diverges
inline constexpr const char* kRuleNowDivergent = "divbench/now-divergent-branch";  // in BASE without diverging
inline constexpr const char* kRuleNewKernelDivergentBranch = "divbench/new-kernel-divergent-branch";  // kernel new
inline constexpr const char* kRuleEfficiencyDrop = "divbench/efficiency-drop";  // > --max-efficiency-drop
inline constexpr const char* kRuleCyclesLostRise = "divbench/cycles-lost-rise";  // > --max-cycles-lost-rise

// GitHub shows at most 10 error annotations per step (and 50 per job): actions/toolkit,
// docs/problem-matchers.md, "Limitations".
inline constexpr std::size_t kGithubErrorsPerStep = 10;

// The repository root the paths are made relative to: the nearest folder at or above the current
// directory that holds .git (a folder, or a file in a worktree or submodule), else the current directory.
std::string default_repo_root();

// Workflow-command escaping (GitHub's toolkit, command.ts): a property value %, \r, \n, ':' and ',';
// the message %, \r and \n.
std::string github_escape_property(const std::string& s);
std::string github_escape_data(const std::string& s);

// One `::error file=PATH,line=N,title=TITLE::MESSAGE` line per regression, worst first (the largest rise
// of estimated cycles lost, NEW - BASE; a new branch: all of its cycles lost), at most `cap`, then one
// `::notice::` line with how many did not fit. PATH relative to `repo_root`; a file outside it as the
// document gives it (the message says so); no source line (no -lineinfo): `::error title=TITLE::MESSAGE`.
// Empty when the verdict has no regression.
std::string github_annotations(const json& verdict, const std::string& repo_root, std::size_t cap = kGithubErrorsPerStep);

// SARIF 2.1.0: one run, tool.driver divbench `version` with one rule per kind above, one result per
// regression with a source line (level error, the uri relative to %SRCROOT% = `repo_root`, the line, and
// partialFingerprints "divbench/v1": sha256 of "KERNEL\nPATH\nLINE\nORDINAL", ORDINAL the result's place
// among the results of that kernel, path and line, in the order of the branch's ordinal on the line and
// the rule). A regression without a source line is no result (GitHub code scanning refuses the whole file
// for a result without a location) but a toolExecutionNotification of the run's invocation.
json diff_sarif(const json& verdict, const std::string& repo_root, const std::string& version);

// SHA-256 of `data`, 64 lowercase hex digits (the fingerprints).
std::string sha256_hex(const std::string& data);

}  // namespace divbench::attribute
