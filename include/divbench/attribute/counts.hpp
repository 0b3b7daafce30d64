// Per-instruction counts of one program run, as the injection library (src/attribute/inject/)
// writes them: CUPTI's SASS metrics per (cubin, function, pc), summed over every launch.
// Document "divbench.attribute_counts/1":
//   {"schema", "pid", "target", "device": {"name", "cc", "chip"}, "metrics": [names], "dropped_records",
//    "launches": {function: n},                           launches of every function the process ran
//    "cubins": [{"crc", "file"}],                         file: relative to the document's folder
//    "functions": [{"crc", "name", "pcs": [[pc, inst, thread_inst, thread_inst_pred_on,
//                                           branch_divergent, branch_uniform[, sectors_global]], ...]}]}
// The seventh column, smsp__sass_sectors_mem_global (32-byte sectors of global memory the instruction's
// executions requested), is there when the injection library could configure that metric (metrics[]
// names it); documents without it (older recordings) read as before.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench::attribute {

inline constexpr const char* kCountsSchema = "divbench.attribute_counts/1";

struct PcCounts {
  std::uint64_t inst = 0;         // smsp__sass_inst_executed: warp-level executions
  std::uint64_t thread_inst = 0;  // smsp__sass_thread_inst_executed: active threads, summed
  std::uint64_t pred_on = 0;      // smsp__sass_thread_inst_executed_pred_on: ... with the guard true
  std::uint64_t divergent = 0;    // smsp__sass_branch_targets_threads_divergent (branches)
  std::uint64_t uniform = 0;      // smsp__sass_branch_targets_threads_uniform (branches)
  std::uint64_t sectors = 0;      // smsp__sass_sectors_mem_global (global loads and stores), when counted
  PcCounts& operator+=(const PcCounts& o);
};

struct FunctionCounts {
  std::uint32_t crc = 0;                  // CUPTI's cubin CRC
  std::string name;                       // mangled
  std::map<std::uint64_t, PcCounts> pcs;  // byte offset from the function's start
  bool has_sectors = false;               // every row carried the sectors column
  // Where the entry was read, for errors found later (a pc outside the code, an impossible branch):
  // "FILE: (/functions/N)", or "counts" when it came from elsewhere.
  std::string origin = "counts";
  const PcCounts* at(std::uint64_t pc) const;
};

// A function's launches as the injection library saw them ("launch_shapes"): the blocks of its launches
// summed, its largest block, and the fewest of its blocks an SM held at once (the occupancy calculator
// at that block and dynamic shared memory).
struct LaunchShape {
  std::uint64_t launches = 0, blocks = 0;
  std::uint64_t block_threads = 0;
  std::uint64_t blocks_per_sm = 0;
  // Resident warps per SM while it ran: its blocks per SM at once times the warps of a block, at most
  // the blocks a launch spreads over `sms` SMs. 0 when unknown.
  double resident_warps_per_sm(double sms) const;
};

struct RunCounts {
  json device = json::object();
  std::vector<std::string> metrics;
  std::uint64_t dropped_records = 0;
  std::map<std::uint32_t, std::string> cubins;  // crc -> cubin path (absolute)
  std::vector<FunctionCounts> functions;
  std::map<std::string, std::uint64_t> launches;  // by function (mangled)
  std::map<std::string, LaunchShape> shapes;      // by function, when the library recorded them
  // Launch sampling (attribute --launches N): the launches of each function its counts come from, when
  // they are fewer than it had (the document's "launch_sampling"; absent: every launch was counted).
  std::map<std::string, std::uint64_t> counted_launches;
  std::uint64_t sample_first = 0;  // N, 0 when the run counted every launch
  int processes = 0;                            // documents merged
};

// Launch sampling's extrapolation: each function whose counts come from fewer launches than it had (c of
// L) gets every count scaled by L / c (instructions rounded up, the other counts down, so that every
// invariant of a counts row holds). Returns per function {launches, counted_launches, factor}.
json extrapolate_sampled(RunCounts& counts);

// Reads one document (paths of cubins resolved against its folder); UsageError on a malformed one,
// one line naming the file and the key path. Every count is an integer 0..2^64-1 (a -1, 1.5 or 1e30 is
// refused, never wrapped); per pc thread_inst <= 32 x inst, pred_on <= thread_inst, an executed
// instruction has a thread, uniform <= inst, divergent <= 32 x inst; one row per pc and one entry per
// function (crc, name); a function's totals and the launches fit in 64 bits.
RunCounts read_counts(const std::string& path);
// The same on a parsed document; `path` names it in errors and is where cubin files are resolved.
RunCounts counts_from_json(const json& doc, const std::string& path);
// Adds `more` into `into` (same crc+name summed; a second process of the same program). UsageError when
// a sum would pass 2^64-1.
void merge_counts(RunCounts& into, const RunCounts& more);
json to_json(const FunctionCounts& f);
// One "functions" entry, at key path `pointer` of `file` (errors: "FILE: (/functions/3/pcs/2/1) is -1,
// not a count ..."). UsageError on a malformed or impossible entry.
FunctionCounts function_counts_from_json(const json& j, const std::string& file = "counts",
                                         const std::string& pointer = "");
// The check that needs the function's code: every pc of `f` is the offset of one of its instructions
// (`is_instruction`; the code is `code_bytes` long), as attribute's join assumes (a pc elsewhere would be
// counted in the kernel's totals and priced nowhere). UsageError naming f.origin.
void check_pcs_inside(const FunctionCounts& f, const std::function<bool(std::uint64_t)>& is_instruction,
                      std::uint64_t code_bytes);

}  // namespace divbench::attribute
