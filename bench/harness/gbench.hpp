// Google Benchmark, the harness underneath: which of its flags divbench passes through, a console
// reporter without Google Benchmark's CPU banner (CPU caches, load average and the library's
// "built as DEBUG" warning say nothing about a GPU result), and what build of it ran (recorded in
// every result's "harness" block).
#pragma once
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench {

// Checks the --benchmark_* flags before any GPU work: UsageError for a flag divbench refuses
// (--benchmark_repetitions: each point already is a median over --reps samples, and repeated runs
// would add points to the fit) or one it does not know. gb_args[0] is argv[0].
void check_benchmark_flags(const std::vector<std::string>& gb_args);

// --benchmark_out=FILE, which Google Benchmark writes itself, under divbench's output rule
// (divbench/core/files.hpp), checked before any GPU work: FILE is none of `inputs` (realpath and hard
// links included), not a directory or special file, its directory exists and is writable, and it is
// none of `results` (the files divbench's own --out writes) nor --out itself (`out`). UsageError, one
// line; creates and removes nothing (the writability probe is removed again).
void check_benchmark_out(const std::vector<std::string>& gb_args, const std::vector<std::string>& inputs,
                         const std::string& out, const std::vector<std::string>& results);

// The console reporter divbench shows: Google Benchmark's per-point lines, no CPU context banner.
// It reads the library's context once, to record whether the library was built in debug mode.
// Colour only on a terminal (Google Benchmark decides that for its own reporter, not for one passed in).
class GpuConsoleReporter : public benchmark::ConsoleReporter {
 public:
  GpuConsoleReporter();
  bool ReportContext(const Context& context) override;
};

// A reporter that shows nothing (--quiet, --format json|csv), reading the context the same way.
class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>&) override {}
};

// {"benchmark_version", "benchmark_source" (system|fetched), "benchmark_library_build"
//  (debug|release|unknown: read from the library's own context report)}.
json benchmark_build_info();

}  // namespace divbench
