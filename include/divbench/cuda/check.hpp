// Error checking for every CUDA runtime call and after every launch.
#pragma once
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace divbench {

struct CudaError : std::runtime_error {
  cudaError_t code;
  CudaError(cudaError_t c, const std::string& what) : std::runtime_error(what), code(c) {}
};

[[noreturn]] void throw_cuda_error(cudaError_t e, const char* expr, const char* file, int line);

// After a kernel launch: picks up launch-configuration errors at once (no synchronization).
void check_launch(const char* kernel_name);

}  // namespace divbench

#define DIVBENCH_CUDA_CHECK(expr)                                                   \
  do {                                                                              \
    cudaError_t divbench_err_ = (expr);                                             \
    if (divbench_err_ != cudaSuccess)                                               \
      ::divbench::throw_cuda_error(divbench_err_, #expr, __FILE__, __LINE__);       \
  } while (0)
