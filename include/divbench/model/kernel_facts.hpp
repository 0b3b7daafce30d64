// divbench's own facts about its kernels (the model library, apart from the general analyzer in
// src/sass, which it reads): what the dynamic experiments need about the kernels of a binary, from its SASS: for every
// function, its natural loops (with every instruction and its control-word scheduling fields), its
// clock reads, its potentially divergent branches with what each side (fall-through / taken) holds,
// the timed region and whether the clock reads bracket it, and the work loop (the one innermost
// loop of the timed region). Which arm of a probe's branch falls through: model/arm_side.hpp.
// Written as "divbench.kernels/1" (docs/sass.md, docs/schemas.md) by `divbench kernels facts`, and
// after every build next to the divbench executable as kernel_facts.json, which experiments read
// at run time (load_kernel_facts).
#pragma once
#include "divbench/core/expected.hpp"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/sass/analysis.hpp"
#include "divbench/sass/control_word.hpp"
#include "divbench/sass/loops.hpp"

namespace divbench::model {

// The analyzer's results these facts are made from.
using sass::ControlWord;
using sass::CubinAnalysis;
using sass::FunctionAnalysis;
using sass::Loops;

inline constexpr const char* kKernelFactsSchema = "divbench.kernels/1";
inline constexpr const char* kKernelFactsFile = "kernel_facts.json";

struct LoopInstruction {
  std::uint64_t offset = 0;
  std::string text;                    // "@!P1 BRA 0x1e0"
  std::string base;                    // "BRA"
  std::optional<ControlWord> control;  // nullopt when the listing had no encodings
  bool jump = false;  // single-path loops: the next instruction of the iteration is not the next address
};

struct LoopFacts {
  int id = -1;                          // index in the function's loop list
  std::uint64_t header = 0;             // offset of the header block
  std::string entry;                    // function or subroutine ("$kernel$callee") holding it
  std::vector<std::uint64_t> blocks;    // block starts
  std::vector<std::uint64_t> latches;   // back-edge source blocks
  int depth = 1;
  int parent = -1;                      // id, -1 when outermost
  bool timer_retry = false;             // a 64-bit timer read's retry loop (sass/bracket.hpp), not work
  std::vector<std::uint64_t> barrier_regions;  // BSSY (SSY) offsets of the barrier regions holding the header
  // One path per iteration (each block has one successor inside the loop, the blocks form one
  // cycle); then `instructions` are in execution order and `taken_branches` counts the jumps
  // (edges to a block other than the next address) of one iteration, back edge included.
  bool single_path = false;
  int taken_branches = 0;
  std::vector<LoopInstruction> instructions;  // offset order, or execution order when single_path

  int instruction_count() const { return static_cast<int>(instructions.size()); }
  // Sum of the stall fields; nullopt when an instruction has no decoded control word.
  std::optional<int> stall_sum() const;
};

LoopFacts loop_facts(const FunctionAnalysis& a, const Loops& loops, int id);
json to_json(const LoopFacts& l);
LoopFacts loop_from_json(const json& j);  // throws UsageError on a malformed entry

// The facts of one function (JSON object of the "functions" array).
json function_facts(const FunctionAnalysis& a);
// The whole document for analysed cubins: schema, provenance, cubins[].functions[].
json kernel_facts_document(const std::vector<CubinAnalysis>& cubins, const std::string& nvdisasm,
                           const std::string& command);

// ---- Readers (run time) ----
// kernel_facts.json (or `file`) in `dir` (the executable's directory); nullopt when absent,
// unreadable or not "divbench.kernels/1". Throws nothing.
std::optional<json> load_kernel_facts(const std::string& dir, const std::string& file = kKernelFactsFile);
// kernel_facts.json in `dir` (the executable's directory), else in an install's <prefix>/share/divbench for a
// `dir` of <prefix>/bin (installed_data_dir), or why there is none. Throws nothing.
Expected<json> find_kernel_facts(const std::string& dir);
// The kernel facts file of the executable in `dir`: `dir`/kernel_facts.json, else (when that does not
// exist) the installed <prefix>/share/divbench/kernel_facts.json where there is one; the first otherwise.
std::string kernel_facts_path(const std::string& dir);
// A compute capability "MAJOR.MINOR" as the architecture number ("9.0" -> 90, "12.1" -> 121); 0 when it is
// not two non-negative integers around one dot.
int sm_of_cc(const std::string& cc);
// The C++ name of a mangled symbol; the symbol itself when it does not demangle.
std::string demangle(const std::string& name);
// The functions of the cubin for `sm` whose mangled name contains every needle.
std::vector<const json*> find_functions(const json& facts, int sm, const std::vector<std::string>& needles);

}  // namespace divbench::model
