#include "divbench/cuda/check.hpp"

namespace divbench {

void throw_cuda_error(cudaError_t e, const char* expr, const char* file, int line) {
  throw CudaError(e, std::string("CUDA error ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ") in " +
                         expr + " at " + file + ":" + std::to_string(line));
}

void check_launch(const char* kernel_name) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    throw CudaError(e, std::string("launch of ") + kernel_name + " failed: " + cudaGetErrorName(e) + " (" +
                           cudaGetErrorString(e) + ")");
}

}  // namespace divbench
