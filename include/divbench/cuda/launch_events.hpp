// CUDA events around each of a sequence of launches (warm-up ones included; elapsed_ms(skip) keeps
// the rest): the whole-launch view of a kernel's time, launch overhead included. One implementation
// for every caller (the timed-point runner's kernel_events, the empty-kernel launch overhead).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "divbench/cuda/check.hpp"

namespace divbench {

struct LaunchEvents {
  std::vector<cudaEvent_t> start, stop;
  explicit LaunchEvents(int n) : start(n, nullptr), stop(n, nullptr) {
    for (int i = 0; i < n; ++i) {
      DIVBENCH_CUDA_CHECK(cudaEventCreate(&start[i]));
      DIVBENCH_CUDA_CHECK(cudaEventCreate(&stop[i]));
    }
  }
  ~LaunchEvents() {
    for (auto e : start) cudaEventDestroy(e);
    for (auto e : stop) cudaEventDestroy(e);
  }
  LaunchEvents(const LaunchEvents&) = delete;
  LaunchEvents& operator=(const LaunchEvents&) = delete;
  // Milliseconds between start[i] and stop[i] for i >= skip; call once the launches have completed.
  std::vector<double> elapsed_ms(int skip) const {
    std::vector<double> ms;
    for (std::size_t i = static_cast<std::size_t>(skip); i < start.size(); ++i) {
      float f = 0;
      DIVBENCH_CUDA_CHECK(cudaEventElapsedTime(&f, start[i], stop[i]));
      ms.push_back(f);
    }
    return ms;
  }
};

}  // namespace divbench
