#include "divbench/cuda/launch.hpp"

#include <chrono>
#include <stdexcept>

#include "divbench/cuda/check.hpp"

namespace divbench {

LaunchSamples time_launches(const LaunchPlan& plan, const std::function<void(RegionSample*)>& launch,
                            const char* kernel_name) {
  if (plan.reps < 1) throw std::invalid_argument("time_launches: reps must be >= 1");
  if (plan.warmup < 0) throw std::invalid_argument("time_launches: warmup must be >= 0");
  if (plan.samples_per_launch < 1) throw std::invalid_argument("time_launches: samples_per_launch must be >= 1");
  const std::size_t n = static_cast<std::size_t>(plan.reps) * plan.samples_per_launch;
  RegionSample* d = nullptr;
  DIVBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d), n * sizeof(RegionSample)));
  LaunchSamples out;
  try {
    // Poison: a sample the kernel failed to write reads as all-ones and is rejected below.
    DIVBENCH_CUDA_CHECK(cudaMemset(d, 0xff, n * sizeof(RegionSample)));
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < plan.warmup; ++i) {
      launch(nullptr);
      check_launch(kernel_name);
    }
    for (int i = 0; i < plan.reps; ++i) {
      launch(d + static_cast<std::size_t>(i) * plan.samples_per_launch);
      check_launch(kernel_name);
    }
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t1 = std::chrono::steady_clock::now();
    out.wall_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    out.samples.resize(n);
    DIVBENCH_CUDA_CHECK(cudaMemcpy(out.samples.data(), d, n * sizeof(RegionSample), cudaMemcpyDeviceToHost));
  } catch (...) {
    cudaFree(d);
    throw;
  }
  DIVBENCH_CUDA_CHECK(cudaFree(d));
  out.reps = plan.reps;
  out.samples_per_launch = plan.samples_per_launch;
  for (std::size_t i = 0; i < n; ++i)
    if (out.samples[i].cycles == ~0ull || out.samples[i].ns == ~0ull)
      throw std::runtime_error(std::string(kernel_name) + ": launch " + std::to_string(i / plan.samples_per_launch) +
                               " did not write its timing sample " + std::to_string(i % plan.samples_per_launch));
  return out;
}

}  // namespace divbench
