// Runs the selected dynamic experiments on the selected devices through Google Benchmark.
#pragma once
#include <string>
#include <vector>

#include "experiment.hpp"
#include "settings.hpp"

namespace divbench {

// The experiments the options select (--sweep, --probe, --all), parsed: UsageError for an unknown
// name or an invalid configuration. No GPU needed.
std::vector<PreparedExperiment> prepare_experiments(const CommandLine& cl, std::vector<std::string>* notes = nullptr);

// Returns the exit code. gb_args[0] is argv[0]; the rest are --benchmark_* flags. Every check that
// needs no GPU (options, configurations, Google Benchmark flags, output targets) runs first.
int run_dynamic(const CommandLine& cl, const std::vector<std::string>& gb_args);

}  // namespace divbench
