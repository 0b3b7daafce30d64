// Runs the selected dynamic experiments on the selected devices through Google Benchmark.
#pragma once
#include <string>
#include <vector>

#include "options.hpp"

namespace divbench {

// Returns the exit code. gb_args[0] is argv[0]; the rest are --benchmark_* flags.
int run_dynamic(const RunOptions& opts, const std::vector<std::string>& gb_args);

}  // namespace divbench
