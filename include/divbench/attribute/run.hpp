// `divbench attribute` as a library: a request in, the attribution and its document out. The command
// (bench/commands/attribute.cpp) parses options into a Request and prints what run() returns.
//   1. the program runs under the injection library: with CUPTI 13.4 or later once (every kernel is
//      instrumented in one run), with an older CUPTI once to find the kernels and once more per kernel
//      (`jobs` at a time); `repeat` 2 runs it once more and marks the kernels whose counts differ;
//   2. unless `pc_sampling` is off, once more under libdivbench_pcsample.so: the time warps spend at each
//      pc, which prices the waits on memory that the issue model cannot (docs/attribute.md);
//   3. the modules that ran are disassembled, the branch table joined with the counts and priced.
#pragma once
#include <deque>
#include <map>
#include <memory>
#include "divbench/core/pattern.hpp"
#include <string>
#include <vector>

#include "divbench/attribute/attribution.hpp"
#include "divbench/attribute/launch.hpp"
#include "divbench/attribute/time_model.hpp"
#include "divbench/core/json_io.hpp"

namespace divbench::attribute {

struct Request {
  std::vector<std::string> argv;  // PROGRAM ARGS... (empty with from_counts)
  std::string kernel = ".";       // regex over mangled or demangled names
  std::string from_counts;        // analyse a recorded run (no program, no GPU)
  std::string save_counts;        // keep the raw counts and modules here (new or empty)
  std::string constants;          // loop-cost constants ("" = the committed fit)
  std::string memory;             // a --sweep memory result ("" = the constants' levels, else memory.json beside them)
  std::string call_path;          // the call-path calibration's result ("" = call_path.json beside the constants; "none")
  std::string nvdisasm;
  int jobs = 4;
  int repeat = 1;                 // 2: run twice, mark kernels whose counts differ
  // Launch sampling: count the first `launches` launches of each kernel and scale its counts by its
  // launches over them (0: every launch, exact; needs CUPTI 13.4's one run of every kernel; off under
  // --repeat 2, whose comparison needs exact counts).
  std::uint64_t launches = 0;
  double timeout_s = 600;         // each run of the program: TERM past it, KILL 10 s later (0: none)
  bool calibrate = false;
  bool pc_sampling = true;
  int pc_sampling_buffer_mib = 0;  // CUPTI's hardware buffer of the sampling run, MiB (0: the library's default)
  bool progress = false;          // progress lines on stderr
  bool one_kernel_per_run = false;  // force the CUPTI 13.0 path (one run per kernel)
  // The CUPTI the program will load (the command finds it: cupti/metrics.hpp) and its API version;
  // from kCuptiAllKernelsVersion on, one run instruments every kernel.
  std::string cupti_path;
  std::uint32_t cupti_version = 0;
  std::vector<std::string> inputs_extra;  // more files the outputs must not name
};

// Everything the document's kernels point into, kept alive with them.
struct Outcome {
  json document;
  std::vector<KernelAttribution> kernels;
  std::vector<KernelTime> times;  // parallel to kernels
  // Parallel to kernels: each kernel's code, and each of its instructions' "file:line" ("" without a line
  // table entry): what the source view (html.hpp) shows.
  std::vector<const sass::Function*> functions;
  std::vector<std::vector<std::string>> sources;
  int exit_code = 0;             // the program's (its first run's)
  std::size_t runs = 0;
  double runs_wall_s = 0;
  std::uint64_t dropped_records = 0;
  // storage
  struct Module;
  std::map<std::uint32_t, std::shared_ptr<Module>> modules;
  std::deque<FunctionBranches> tables;
  std::deque<std::vector<model::IssueCost>> costs;
  std::deque<FunctionCounts> counts;
};

// Checks the request (UsageError, before anything runs), runs it, and returns the attribution. Throws
// Interrupted when a signal ended the program, UsageError for what a user can fix, and
// ProgramFailed when the program failed before any counts came (its exit code is divbench's).
struct ProgramFailed {
  int exit_code;
  std::string why;
};
Outcome run(const Request& request);

// --kernel's expression (UsageError when it is not one), and whether a mangled name or its demangled
// form matches it.
// Every code section (.text.NAME) of the cubin at `cubin_path` starts with the function symbol NAME: a
// symbol table that does not say so (one flipped bit in a name) is an error naming `shown`, not a kernel
// silently lost. UsageError.
void check_code_symbols(const std::string& cubin_path, const std::string& shown);
NamePattern kernel_regex(const std::string& r);
bool kernel_matches(const NamePattern& re, const std::string& mangled);

// The request's checks alone (also part of run()): exit-2 errors before any GPU work.
void check_request(const Request& request);

// The memory probe's result beside a constants file (DIR/memory.json), or "" when there is none.
std::string default_memory_path(const std::string& constants_path);
// The call-path calibration's result beside a constants file (DIR/call_path.json), or "" when there is none.
std::string default_call_path_path(const std::string& constants_path);

}  // namespace divbench::attribute
