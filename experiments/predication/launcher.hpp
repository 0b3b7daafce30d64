// Host launch wrappers of the predication kernels (experiments/predication/: device code in
// predication.cuh, launchers in predication.cu).
//
// FMA-chain work of `iters` iterations per arm; arm q uses FmaChain's constants of salt q, passed as
// data so every arm runs the same instructions:
//   single      the arm loop with one arm: every lane runs arm 0 (one path, the baseline);
//   branchy     the same kernel with two arms: lane % 2 picks arm 0 or 1 inside a real divergent
//               branch (two serialized paths: the work loop runs twice per iteration);
//   predicated  every lane runs all `arms` arms interleaved in one branch-free loop and selects
//               arm lane % arms at the end (full SIMD efficiency; cost grows with the arms' issue).
// Every variant is built at every code placement (0..kPlacements-1). Lane l's result is
// FmaChain::chain(seed(l), a[l % n], b[l % n], iters) with n the variant's arms.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/kernels/timed_kernel.hpp"

namespace divbench {

enum class PredVariant { single, branchy, predicated };

const char* pred_variant_name(PredVariant v);

// Arm counts the predicated kernel is built for (1, 2, 4, 8, 16, 32).
const std::vector<int>& predicated_arm_counts();

// Arms a variant runs: single 1, branchy 2, predicated `arms`.
int pred_arms(PredVariant v, int arms);

// How often the variant's work loop runs per iteration of work: the divergent arm loop runs it once
// per arm (single 1, branchy 2), the predicated form once for all arms.
int pred_work_loops_per_iteration(PredVariant v, int arms);

// A substring of the mangled name of the variant's kernel at `placement`, unique among divbench's
// kernels: how the SASS facts of this very kernel are found (single and branchy share a kernel).
std::string predication_kernel_needle(PredVariant v, int arms, int placement);

// The variant's kernel at code placement `placement` as a TimedKernel (any grid: warp w writes
// samples[w], thread t out[t]). std::invalid_argument for an arm count or placement not built.
TimedKernel predication_timed_kernel(PredVariant v, int arms, std::uint32_t iters, int placement = 0);

// What lane `lane` must produce.
float predication_reference(PredVariant v, int arms, std::uint32_t iters, int lane);

}  // namespace divbench
