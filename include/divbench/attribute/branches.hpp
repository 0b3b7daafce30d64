// The static branch table of `divbench attribute`: every potentially divergent branch of a function,
// from the binary alone (CFG, immediate post-dominator, reconvergence placement, guard, nesting,
// source line), and the region of instructions its paths run before they reconverge.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/sass/analysis.hpp"

namespace divbench::attribute {

struct StaticBranch {
  std::size_t index = 0;                 // instruction index of the branch in its Function
  std::uint64_t pc = 0;                  // byte offset from the function's start
  std::optional<std::uint64_t> ipdom;    // byte offset from the function's start; nullopt = the exit
  std::string placement;                 // at | after | before | unguarded | unclosed (worst guard record)
  bool guarded = false;                  // a BSSY region guards it
  bool indirect = false;                 // BRX/JMX (paths per execution not known from counts)
  // An indirect call (CALL.REL.NOINC Rn, also `indirect`): its region is every subroutine of the
  // function, so the calls of one function share it (attribution.hpp counts it once).
  bool call = false;
  int nesting = 0;                       // how many other branches' regions hold this branch
  std::string source;                    // "file:line" from the line table, "" without -lineinfo
  std::string text;                      // the instruction, e.g. "@P0 BRA 0x620"
  // The region: instruction indices reachable from the branch's successors before its IPDom block, and
  // the code of the functions those instructions call (every instruction a path of this branch may run
  // before the paths meet again), ascending.
  std::vector<std::size_t> region;
  std::optional<std::size_t> ipdom_index;  // the IPDom block's first instruction past its BSYNCs
  // A loop branch: its region holds the branch itself (a loop's exit or latch: its paths come back to
  // it before they reconverge). Its ideal is the lanes that entered the loop, not the lanes at the
  // branch (which average over iterations as lanes leave): `entries` are the last instructions of the
  // blocks outside the region with an edge into it (the loop's entry edges), ascending.
  bool loop = false;
  std::vector<std::size_t> entries;
};

struct FunctionBranches {
  std::string name;  // mangled
  int sm = 0;
  std::vector<StaticBranch> branches;  // ascending pc
};

// `outer`'s region holds `inner` and `inner`'s does not hold `outer` (two branches of one loop hold each
// other: neither is inside the other). The one rule of nesting and of the kernel total.
bool region_holds(const StaticBranch& outer, const StaticBranch& inner);

// The table of one analysed function; `source_files` is the cubin's line table (Cubin::source_files).
FunctionBranches branch_table(const sass::FunctionAnalysis& a, int sm, const std::vector<std::string>& source_files);

// "file:line" of instruction i, "" when the line table does not cover it.
std::string source_of(const sass::Instruction& ins, const std::vector<std::string>& source_files);

// The `--static --json` contract: {"kernels": [{"name", "arch", "branches": [{"pc", "ipdom",
// "placement", "guarded", "source", ...}]}]}; pc and ipdom are byte offsets from the function's start.
json to_json(const StaticBranch& b);
json to_json(const FunctionBranches& f);

}  // namespace divbench::attribute
