#include "divbench/cuda/launch.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"

namespace divbench {

LaunchSamples time_launches(const LaunchPlan& plan, const std::function<void(RegionSample*)>& launch,
                            const char* kernel_name) {
  if (plan.launches < 1) throw std::invalid_argument("time_launches: launches must be >= 1");
  if (plan.warmup < 0) throw std::invalid_argument("time_launches: warmup must be >= 0");
  if (plan.samples_per_launch < 1) throw std::invalid_argument("time_launches: samples_per_launch must be >= 1");
  const std::size_t n = static_cast<std::size_t>(plan.launches) * plan.samples_per_launch;
  // Poison: a sample the kernel failed to write reads as all-ones and is rejected below.
  DeviceBuffer<RegionSample> d(n, 0xff);
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  LaunchSamples out;
  // Device time of the whole batch (warm-up included): what the point cost the GPU.
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  DIVBENCH_CUDA_CHECK(cudaEventCreate(&e0));
  DIVBENCH_CUDA_CHECK(cudaEventCreate(&e1));
  struct Events {
    cudaEvent_t a, b;
    ~Events() {
      cudaEventDestroy(a);
      cudaEventDestroy(b);
    }
  } events{e0, e1};
  const auto t0 = std::chrono::steady_clock::now();
  DIVBENCH_CUDA_CHECK(cudaEventRecord(e0));
  for (int i = 0; i < plan.warmup; ++i) {
    launch(nullptr);
    check_launch(kernel_name);
  }
  for (int i = 0; i < plan.launches; ++i) {
    launch(d.get() + static_cast<std::size_t>(i) * plan.samples_per_launch);
    check_launch(kernel_name);
  }
  DIVBENCH_CUDA_CHECK(cudaEventRecord(e1));
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  float gpu_ms = 0;
  DIVBENCH_CUDA_CHECK(cudaEventElapsedTime(&gpu_ms, e0, e1));
  out.gpu_ms = gpu_ms;
  out.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  out.samples = d.download();
  out.launches = plan.launches;
  out.samples_per_launch = plan.samples_per_launch;
  for (std::size_t i = 0; i < n; ++i)
    if (out.samples[i].cycles == ~0ull || out.samples[i].ns == ~0ull)
      throw std::runtime_error(std::string(kernel_name) + ": launch " + std::to_string(i / plan.samples_per_launch) +
                               " did not write its timing sample " + std::to_string(i % plan.samples_per_launch));
  return out;
}

}  // namespace divbench
