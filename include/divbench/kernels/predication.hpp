// Host launch wrappers of the predication kernels (kernels/predication/predication.cu).
//
// One warp, FMA-chain work of `iters` iterations per arm; arm q uses FmaChain's constants of salt q,
// passed as data so every arm runs the same instructions:
//   single      the arm loop with one arm: every lane runs arm 0 (one path, the baseline);
//   branchy     the same kernel with two arms: lane % 2 picks arm 0 or 1 inside a real divergent
//               branch (two serialized paths);
//   predicated  every lane runs all `arms` arms interleaved in one branch-free loop and selects
//               arm lane % arms at the end (full SIMD efficiency; cost grows with the arms' issue).
// Lane l's result is FmaChain::chain(seed(l), a[l % n], b[l % n], iters) with n the variant's arms.
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

// The variant's kernel as a TimedKernel (any grid: warp w writes samples[w], thread t out[t]).
TimedKernel predication_timed_kernel(PredVariant v, int arms, std::uint32_t iters);

// What lane `lane` must produce.
float predication_reference(PredVariant v, int arms, std::uint32_t iters, int lane);

}  // namespace divbench
