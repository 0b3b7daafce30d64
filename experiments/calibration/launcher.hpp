// Calibration kernels of known divergence for the efficiency counters (experiments/calibration/calibration.cu).
//
// One warp. Lane l takes path l % k and runs `iters` iterations of the FMA chain there; k = 1 has no
// branch at all (converged). No clock reads, no __syncwarp: the smallest kernel of that divergence,
// so even the whole-kernel ratio approaches 32/k as iters grows. iters = 0 is the zero-work twin.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace divbench {

// The k a calibration kernel is built for: 1 (converged), 2, 4, 8, 16, 32.
const std::vector<int>& calibration_ks();

// Enqueue one launch of one warp writing out[0..31]. std::invalid_argument for a k not built.
void launch_calibration(int k, std::uint32_t iters, float* out, cudaStream_t stream = nullptr);

// One synchronized launch into a NaN-poisoned buffer; returns the 32 lane outputs.
std::vector<float> run_calibration(int k, std::uint32_t iters);

// What lane `lane` must write (the same float operations on the host; bit-exact).
float calibration_reference(int k, std::uint32_t iters, int lane);

}  // namespace divbench
