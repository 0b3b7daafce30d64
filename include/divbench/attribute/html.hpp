// The source view of `divbench attribute --html FILE`: one self-contained page (no script, no network),
// per kernel its CUDA source with each line's predicted time saved, divergent executions and region
// efficiency as a heat column, the SASS of a selected line beside it (each instruction's active lanes, its
// branch and reconvergence point), the ranked branches linking into both, the kernels' summary on top.
// Selecting a line is a link to its SASS block, shown by CSS :target.
//
// Anchors (stable, for tests and links): kernel section "kN"; source row "kN-fF-L<line>" (F: the index of
// the file in the kernel's file list); its SASS block "kN-sass-fF-L<line>"; an instruction "kN-pc-<hex>".
// Every source row carries data-share (the largest predicted time saved of the branches on that line: their
// regions overlap, so their shares do not add up),
// every ranked branch data-share (its own).
#pragma once
#include <string>
#include <vector>

#include "divbench/attribute/attribution.hpp"
#include "divbench/core/json_io.hpp"

namespace divbench::attribute {

// `functions` and `sources` are parallel to `kernels`: each kernel's code and its instructions' "file:line"
// ("" where the line table says nothing). `run` is the attribute document (program, device: the header).
// Source files are read from the paths the line table names, when readable here; otherwise the lines show
// their numbers alone.
std::string html_view(const std::vector<KernelAttribution>& kernels, const std::vector<const sass::Function*>& functions,
                      const std::vector<std::vector<std::string>>& sources, const json& run);

}  // namespace divbench::attribute
