// Per-instruction counts of one program run, as the injection library (src/attribute/inject/)
// writes them: CUPTI's SASS metrics per (cubin, function, pc), summed over every launch.
// Document "divbench.attribute_counts/1":
//   {"schema", "pid", "target", "device": {"name", "cc", "chip"}, "metrics": [names], "dropped_records",
//    "launches": {function: n},                           launches of every function the process ran
//    "cubins": [{"crc", "file"}],                         file: relative to the document's folder
//    "functions": [{"crc", "name", "pcs": [[pc, inst, thread_inst, thread_inst_pred_on,
//                                           branch_divergent, branch_uniform], ...]}]}
#pragma once
#include <cstdint>
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
  PcCounts& operator+=(const PcCounts& o);
};

struct FunctionCounts {
  std::uint32_t crc = 0;                  // CUPTI's cubin CRC
  std::string name;                       // mangled
  std::map<std::uint64_t, PcCounts> pcs;  // byte offset from the function's start
  const PcCounts* at(std::uint64_t pc) const;
};

struct RunCounts {
  json device = json::object();
  std::vector<std::string> metrics;
  std::uint64_t dropped_records = 0;
  std::map<std::uint32_t, std::string> cubins;  // crc -> cubin path (absolute)
  std::vector<FunctionCounts> functions;
  std::map<std::string, std::uint64_t> launches;  // by function (mangled)
  int processes = 0;                            // documents merged
};

// Reads one document (paths of cubins resolved against its folder); UsageError on a malformed one.
RunCounts read_counts(const std::string& path);
// Adds `more` into `into` (same crc+name summed; a second process of the same program).
void merge_counts(RunCounts& into, const RunCounts& more);
json to_json(const FunctionCounts& f);
FunctionCounts function_counts_from_json(const json& j);  // UsageError on a malformed entry

}  // namespace divbench::attribute
