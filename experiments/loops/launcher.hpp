// Launchers of the loop-cost model's validation loops (experiments/loops/loops.cu): one warp per SM runs
// one body's loop for `iters` iterations inside the timed region; every code placement is built.
// Built only for the architectures of DIVBENCH_VALIDATION_ARCHS (the GPU's preset; sm_90 in CI) to
// keep CI's compile time down: validation_built_for() says whether a device can run them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/kernels/timed_kernel.hpp"

namespace divbench {

// The bodies' names ("int_chain", ...), in the order of experiments/loops/loops.cu.
const std::vector<std::string>& validation_body_names();

// The body's loop for `iters` iterations at `placement` as a TimedKernel. std::invalid_argument for
// an unknown body or placement.
TimedKernel validation_timed_kernel(const std::string& body, std::uint32_t iters, int placement);

// A substring of the mangled name of exactly one validation kernel (for the kernel facts).
std::string validation_kernel_needle(const std::string& body, int placement);

// The architectures (sm numbers) the validation kernels were compiled for.
const std::vector<int>& validation_built_for();

}  // namespace divbench
