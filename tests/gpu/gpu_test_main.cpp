// Entry point of the GPU test binary: skip (exit 77, CTest SKIP_RETURN_CODE) when no device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    std::printf("SKIP: no CUDA GPU (%s); GPU tests not run\n", e == cudaSuccess ? "0 devices" : cudaGetErrorString(e));
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
